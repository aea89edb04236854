// The compiler's ConvLibrary (compiler/compiler.h) on a runtime device:
// the device loads its convolution library and builds the description's
// plan (runtime::Device::prepareLibrary), which execution then reuses. A
// device without a convolution library refuses, and the compiler keeps the
// patches + GEMM route.
#pragma once

#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "compiler/compiler.h"
#include "runtime/device.h"

namespace jft::pjrt {

// Whether compiles get the convolution library: yes (cuDNN ran every case of
// tests/gpu on the H200 and beat both our implicit GEMM and upstream XLA on
// the ResNet-shaped bf16 benchmark, docs/performance.md), unless JFT_CUDNN=0
// (every library convolution on patches + cuBLASLt, to compare the routes; a
// forced cudnn route then fails its compile).
inline bool cudnnWanted() {
  const char* setting = std::getenv("JFT_CUDNN");
  return setting == nullptr || std::strcmp(setting, "0") != 0;
}

class DeviceConvLibrary final : public compiler::ConvLibrary {
 public:
  // `devices`: every device of this process the program runs on. A plan
  // belongs to one device, so each must take the description (and keeps its
  // plan for execution); the first refusal is the answer.
  explicit DeviceConvLibrary(std::vector<runtime::Device*> devices)
      : devices_(std::move(devices)) {}
  Status check(const runtime::ConvDesc& desc) override {
    for (runtime::Device* device : devices_)
      JFT_RETURN_IF_ERROR(device->prepareLibrary(runtime::LibraryOp{desc}));
    return Status::ok();
  }

 private:
  std::vector<runtime::Device*> devices_;
};

}  // namespace jft::pjrt
