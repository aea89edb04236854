// The executable tests' fixture: a recording device whose "add" kernel adds
// two vectors of kElements floats (test_programs.h), with helpers to load a
// program and to make an input vector on it.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "recording_device.h"
#include "runtime/executable.h"
#include "test_programs.h"

namespace jft::runtime::testing {

class VectorDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override { device_.setKernelBody("add", addBody()); }

  static RecordingDevice::KernelBody addBody() {
    return [](const std::vector<uint64_t>& p, const LaunchDims&) {
      for (int i = 0; i < kElements; ++i)
        floats(p[2])[i] = floats(p[0])[i] + floats(p[1])[i];
    };
  }

  std::unique_ptr<Executable> load(Program program) {
    auto executable = Executable::load(device_, std::move(program));
    EXPECT_TRUE(executable.isOk()) << executable.status().toString();
    return executable.isOk() ? std::move(executable).value() : nullptr;
  }

  // A device vector x[i] = start + i.
  uint64_t input(float start) {
    uint64_t address = *device_.allocate(kVectorBytes);
    for (int i = 0; i < kElements; ++i)
      floats(address)[i] = start + static_cast<float>(i);
    return address;
  }

  void release(const ExecuteResult& result) {
    for (auto& output : result.outputs) device_.deallocate(output.address, output.bytes);
  }

  RecordingDevice device_;
};

}  // namespace jft::runtime::testing
