// The compiler's ConvLibrary (compiler/conv_library.h) on a runtime device:
// the device loads its convolution library and builds the description's
// plan (runtime::Device::prepareLibrary), which execution then reuses. A
// device without a convolution library refuses, and the compiler keeps the
// patches + GEMM route.
#pragma once

#include <cstdlib>
#include <cstring>

#include "compiler/conv_library.h"
#include "runtime/device.h"

namespace jft::pjrt {

// JFT_CUDNN=0: compile without the convolution library (every library
// convolution on patches + cuBLASLt), to compare the two routes.
inline bool cudnnDisabled() {
  const char* setting = std::getenv("JFT_CUDNN");
  return setting != nullptr && std::strcmp(setting, "0") == 0;
}

class DeviceConvLibrary final : public compiler::ConvLibrary {
 public:
  explicit DeviceConvLibrary(runtime::Device& device) : device_(device) {}
  Status check(const runtime::ConvDesc& desc) override {
    return device_.prepareLibrary(runtime::LibraryOp{desc});
  }

 private:
  runtime::Device& device_;
};

}  // namespace jft::pjrt
