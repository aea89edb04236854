// Runs a loaded executable on float32 inputs on the recording device: the
// inputs uploaded, the run awaited, the outputs read back as float32 and
// every buffer freed again.
#pragma once

#include <cstring>
#include <vector>

#include "runtime/executable.h"
#include "runtime/recording_device.h"
#include "support/status.h"

namespace jft::compiler::testing {

inline StatusOr<std::vector<std::vector<float>>> runF32(
    runtime::testing::RecordingDevice& device, runtime::Executable& executable,
    const std::vector<std::vector<float>>& inputs) {
  std::vector<runtime::ExecuteArgument> args;
  for (const std::vector<float>& data : inputs) {
    const uint64_t bytes = data.size() * sizeof(float);
    JFT_ASSIGN_OR_RETURN(uint64_t address, device.allocate(bytes));
    std::memcpy(reinterpret_cast<void*>(address), data.data(), bytes);
    args.push_back({address, bytes, false});
  }
  StatusOr<runtime::ExecuteResult> result = executable.execute(args);
  std::vector<std::vector<float>> outputs;
  Status done = result.isOk() ? result->done->await() : result.status();
  if (result.isOk())
    for (const runtime::ExecuteOutput& out : result->outputs) {
      const float* data = reinterpret_cast<const float*>(out.address);
      outputs.emplace_back(data, data + out.bytes / sizeof(float));
      device.deallocate(out.address, out.bytes);
    }
  for (const runtime::ExecuteArgument& a : args) device.deallocate(a.address, a.bytes);
  if (!done.isOk()) return done;
  return outputs;
}

}  // namespace jft::compiler::testing
