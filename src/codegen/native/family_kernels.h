// Internal to the native emitter: the body of each kernel family, given the
// kernel's parameters (native_kernel.cc writes the signature around it).
#pragma once

#include <string>

#include "codegen/native/cuda_writer.h"
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
  // Kernels launched after this one (their name: the kernel's + `suffix`).
  std::string suffix;
  std::vector<FamilyKernel> later;
};

StatusOr<FamilyKernel> emitLoopBody(const KernelContext& context);
StatusOr<FamilyKernel> emitReductionBody(const KernelContext& context);
StatusOr<FamilyKernel> emitScanBody(const KernelContext& context);
StatusOr<FamilyKernel> emitSortBody(const KernelContext& context);
StatusOr<FamilyKernel> emitScatterBody(const KernelContext& context);

// Shared by the families (loop_kernel.cc).
// The loop family's body for `values` (of one shape), value i stored to
// output i.
StatusOr<FamilyKernel> emitElementLoop(const KernelContext& c,
                                       const std::vector<ir::ValueId>& values);
// "for (jft_i64 jft_i = ...; jft_i < total; ...) {": one element per thread
// of the whole grid, the rest looped over; the caller closes it.
void openGridStrideLoop(CudaWriter& w, int64_t total);
// "for (jft_i64 jft_row = blockIdx.x; jft_row < rows; ...) {": one block per
// row; the caller closes it.
void openBlockRowLoop(CudaWriter& w, int64_t rows);
// Blocks for `total` units of `per_block` each, within the options' bound.
uint32_t blocksFor(const KernelContext& c, int64_t total, int64_t per_block);
// A power of two of whole warps (the trees halve it), up to `most` threads
// and no more than needed for `extent` elements.
int64_t blockThreads(const KernelContext& c, int64_t extent, int64_t most);
// The group's (last) op of `kind`; UNIMPLEMENTED naming the family when it
// holds none.
StatusOr<const ir::Op*> groupOpOf(const KernelContext& c, ir::OpKind kind,
                                  const char* family);

}  // namespace jft::codegen::native
