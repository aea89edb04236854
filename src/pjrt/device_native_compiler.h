// The compiler's NativeCompiler (compiler/native_compiler.h) on a runtime
// device: the device's runtime compiler (NVRTC for its compute capability on
// CUDA; runtime::Device::compileSource). libnvrtc is looked for as
// runtime/gpu/nvrtc.h says (JFT_NVRTC_LIBRARY, which the Python registration
// points at the nvidia-cuda-nvrtc wheel, then the loader's path).
#pragma once

#include <string>

#include "compiler/native_compiler.h"
#include "runtime/device.h"

namespace jft::pjrt {

class DeviceNativeCompiler final : public compiler::NativeCompiler {
 public:
  // `device`: the device the program is built for (the first participant of
  // this process; every participant has the same GPU model).
  explicit DeviceNativeCompiler(runtime::Device& device) : device_(device) {}
  StatusOr<std::string> identity() override { return device_.sourceCompiler(); }
  StatusOr<std::string> compile(const std::string& source,
                                const std::string& name) override {
    return device_.compileSource(source, name);
  }

 private:
  runtime::Device& device_;
};

}  // namespace jft::pjrt
