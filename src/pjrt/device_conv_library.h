// The compiler's ConvLibrary (compiler/conv_library.h) on a runtime device:
// the device loads its convolution library and builds the description's
// plan (runtime::Device::prepareLibrary), which execution then reuses. A
// device without a convolution library refuses, and the compiler keeps the
// patches + GEMM route.
#pragma once

#include <cstdlib>
#include <cstring>

#include "compiler/conv_library.h"
#include "fusion/fusion.h"
#include "runtime/device.h"

namespace jft::pjrt {

// Whether compiles get the convolution library. Opt-in until the cuDNN route
// has run on a device: XLA_FLAGTREE_CONV=cudnn (`route`) or JFT_CUDNN=1;
// JFT_CUDNN=0 never (every library convolution on patches + cuBLASLt, to
// compare the two routes; a forced cudnn route then fails its compile).
inline bool cudnnWanted(fusion::ConvRoute route) {
  const char* setting = std::getenv("JFT_CUDNN");
  if (setting != nullptr && std::strcmp(setting, "0") == 0) return false;
  if (setting != nullptr && std::strcmp(setting, "1") == 0) return true;
  return route == fusion::ConvRoute::kCudnn;
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
