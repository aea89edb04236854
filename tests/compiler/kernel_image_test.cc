// CompiledKernel -> KernelImage: roles mapped, contract checked.
#include "compiler/kernel_image.h"

#include <gtest/gtest.h>

namespace jft::compiler {
namespace {

using Param = runtime::KernelImage::Param;

kernel_compiler::KernelParam pointer(kernel_compiler::ParamRole role) {
  return {"*fp32", role, 8, true};
}

kernel_compiler::CompiledKernel kernelWith(std::vector<kernel_compiler::KernelParam> params) {
  kernel_compiler::CompiledKernel k;
  k.binary = "CUBIN";
  k.name = "fusion_1_loop_exp";
  k.shared_mem = 2048;
  k.num_warps = 8;
  k.params = std::move(params);
  k.global_scratch_size = 64;
  k.global_scratch_align = 16;
  k.profile_scratch_size = 0;
  return k;
}

TEST(KernelImage, BuffersThenScratch) {
  StatusOr<runtime::KernelImage> image =
      toKernelImage(kernelWith({pointer(kernel_compiler::ParamRole::kArg),
                                pointer(kernel_compiler::ParamRole::kArg),
                                {"*i8", kernel_compiler::ParamRole::kGlobalScratch, 8, true},
                                {"*i8", kernel_compiler::ParamRole::kProfileScratch, 8, true}}),
                    2);
  ASSERT_TRUE(image.isOk()) << image.status().toString();
  EXPECT_EQ(image->params,
            (std::vector<Param>{Param::kBuffer, Param::kBuffer, Param::kGlobalScratch,
                                Param::kProfileScratch}));
  EXPECT_EQ(image->binary, "CUBIN");
  EXPECT_EQ(image->name, "fusion_1_loop_exp");
  EXPECT_EQ(image->shared_mem, 2048u);
  EXPECT_EQ(image->num_warps, 8);
  EXPECT_EQ(image->global_scratch_size, 64u);
  EXPECT_EQ(image->global_scratch_align, 16u);
}

TEST(KernelImage, ContractMismatchesAreInternalErrors) {
  // One buffer too few.
  EXPECT_EQ(
      toKernelImage(kernelWith({pointer(kernel_compiler::ParamRole::kArg)}), 2).status().code(),
      StatusCode::kInternal);
  // A scalar argument: our TTIR has none.
  EXPECT_FALSE(
      toKernelImage(kernelWith({{"i32", kernel_compiler::ParamRole::kArg, 4, false}}), 1).isOk());
  // A parameter the launcher cannot fill.
  Status hidden =
      toKernelImage(kernelWith({pointer(kernel_compiler::ParamRole::kArg),
                                {"i8", kernel_compiler::ParamRole::kHidden, 1, false}}),
                    1)
          .status();
  EXPECT_EQ(hidden.code(), StatusCode::kInternal);
  EXPECT_NE(hidden.message().find("fusion_1_loop_exp"), std::string::npos);
}

}  // namespace
}  // namespace jft::compiler
