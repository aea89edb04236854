// Internal to the native emitter: the body of each kernel family, given the
// kernel's parameters (native_kernel.cc writes the signature around it).
#pragma once

#include <string>

#include "codegen/native/native_kernel.h"

namespace jft::codegen::native {

struct KernelContext {
  const ir::Module& module;
  const ir::Function& function;
  const fusion::Fusion& fusion;
  const NativeOptions& options;
  std::vector<std::string> input_params;
  std::vector<std::string> output_params;
  std::string index_type;
};

// What a family decides: its body and launch.
struct FamilyKernel {
  std::string body;    // statements inside the kernel function
  std::string shared;  // __shared__ declarations at the top of the body
  uint32_t grid = 1;
  int num_warps = 4;
};

StatusOr<FamilyKernel> emitLoopBody(const KernelContext& context);
StatusOr<FamilyKernel> emitReductionBody(const KernelContext& context);

}  // namespace jft::codegen::native
