// CompiledKernel -> runtime::KernelImage.
#include "compiler/kernel_image.h"

namespace jft::compiler {

StatusOr<runtime::KernelImage> toKernelImage(
    const kernel_compiler::CompiledKernel& kernel, size_t buffer_params) {
  using Param = runtime::KernelImage::Param;
  runtime::KernelImage image;
  image.binary = kernel.binary;
  image.name = kernel.name;
  image.shared_mem = kernel.shared_mem;
  image.num_warps = kernel.num_warps;
  image.global_scratch_size = kernel.global_scratch_size;
  image.global_scratch_align = kernel.global_scratch_align;
  image.profile_scratch_size = kernel.profile_scratch_size;
  image.profile_scratch_align = kernel.profile_scratch_align;
  size_t buffers = 0;
  for (size_t i = 0; i < kernel.params.size(); ++i) {
    const kernel_compiler::KernelParam& param = kernel.params[i];
    std::string which = "kernel " + kernel.name + ": parameter " + std::to_string(i) +
                        " (" + param.type + ", " +
                        kernel_compiler::paramRoleName(param.role) + ")";
    switch (param.role) {
      case kernel_compiler::ParamRole::kArg:
        if (!param.is_pointer)
          return internalError(which +
                               " is not a pointer; our kernels take buffers only");
        image.params.push_back(Param::kBuffer);
        ++buffers;
        break;
      case kernel_compiler::ParamRole::kGlobalScratch:
        image.params.push_back(Param::kGlobalScratch);
        break;
      case kernel_compiler::ParamRole::kProfileScratch:
        image.params.push_back(Param::kProfileScratch);
        break;
      case kernel_compiler::ParamRole::kHidden:
        return internalError(which + " is one the launcher cannot provide");
    }
  }
  if (buffers != buffer_params)
    return internalError("kernel " + kernel.name + " takes " + std::to_string(buffers) +
                         " buffers but its fusion has " + std::to_string(buffer_params));
  if (image.num_warps <= 0)
    return internalError("kernel " + kernel.name + " reports " +
                         std::to_string(image.num_warps) + " warps");
  return image;
}

}  // namespace jft::compiler
