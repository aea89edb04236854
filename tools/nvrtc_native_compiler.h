// The compiler's NativeCompiler for `jft compile --binaries`: NVRTC for the
// --arch given, without a GPU (runtime/gpu/nvrtc.h says where libnvrtc is
// looked for).
#pragma once

#include <string>

#include "compiler/native_compiler.h"
#include "runtime/gpu/nvrtc.h"

namespace jft::tools {

class NvrtcNativeCompiler final : public compiler::NativeCompiler {
 public:
  explicit NvrtcNativeCompiler(int arch) : arch_(arch) {}
  StatusOr<std::string> identity() override {
    JFT_ASSIGN_OR_RETURN(runtime::gpu::NvrtcVersion version,
                         runtime::gpu::nvrtcVersion());
    return "nvrtc " + std::to_string(version.major) + "." +
           std::to_string(version.minor) + " sm_" + std::to_string(arch_);
  }
  StatusOr<std::string> compile(const std::string& source,
                                const std::string& name) override {
    return runtime::gpu::compileToCubin(source, name, arch_);
  }

 private:
  int arch_;
};

}  // namespace jft::tools
