// DeviceProgram: a compiled program loaded on one device, as Execute drives
// it. The production implementation is runtime::Executable
// (executable_runtime.cc); tests substitute their own, so the ABI layer runs
// without a GPU.
#pragma once

#include <functional>
#include <memory>
#include <span>

#include "runtime/collective_context.h"
#include "runtime/device.h"
#include "runtime/executable.h"
#include "runtime/program.h"
#include "support/status.h"

namespace jft::pjrt {

class DeviceProgram {
 public:
  virtual ~DeviceProgram() = default;
  // Enqueues one execution and returns without waiting for the device.
  // `participant`: who this execution is among a program's several
  // participants (runtime/collective_context.h); null for one.
  virtual StatusOr<runtime::ExecuteResult> execute(
      std::span<const runtime::ExecuteArgument> arguments,
      const runtime::ParticipantContext* participant) = 0;
};

using ProgramLoader = std::function<StatusOr<std::unique_ptr<DeviceProgram>>(
    runtime::Device& device, const runtime::Program& program)>;

// Loads through runtime::Executable.
ProgramLoader runtimeProgramLoader();

}  // namespace jft::pjrt
