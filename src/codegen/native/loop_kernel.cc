// The loop family: a grid-stride loop over the outputs' elements, every
// output computed at each linear index through the elemental emitter.
#include <algorithm>
#include <string>

#include "codegen/native/c_types.h"
#include "codegen/native/elemental.h"
#include "codegen/native/family_kernels.h"
#include "support/int_lists.h"

namespace jft::codegen::native {

namespace {
constexpr int kLoopThreads = 256;
}

void openGridStrideLoop(CudaWriter& w, int64_t total) {
  w.open("for (jft_i64 jft_i = (jft_i64)blockIdx.x * blockDim.x + threadIdx.x; jft_i < " +
         std::to_string(total) + "ll; jft_i += (jft_i64)gridDim.x * blockDim.x) {");
}

void openBlockRowLoop(CudaWriter& w, int64_t rows) {
  w.open("for (jft_i64 jft_row = blockIdx.x; jft_row < " + std::to_string(rows) +
         "ll; jft_row += gridDim.x) {");
}

uint32_t blocksFor(const KernelContext& c, int64_t total, int64_t per_block) {
  return static_cast<uint32_t>(std::min<int64_t>(
      ceilDiv(total, per_block), static_cast<int64_t>(c.options.max_blocks)));
}

int64_t blockThreads(const KernelContext& c, int64_t extent, int64_t most) {
  int64_t threads = c.options.warp_size;
  while (threads < extent && threads < most) threads *= 2;
  return threads;
}

StatusOr<FamilyKernel> emitLoopBody(const KernelContext& c) {
  if (c.fusion.outputs.empty())
    return unimplemented(c.fusion.name + ": a loop group without outputs");
  return emitElementLoop(c, c.fusion.outputs);
}

StatusOr<FamilyKernel> emitElementLoop(const KernelContext& c,
                                       const std::vector<ir::ValueId>& values) {
  const fusion::Fusion& fusion = c.fusion;
  const std::vector<int64_t> dims = c.module.typeOf(values.at(0)).dims;
  for (ir::ValueId v : values)
    if (c.module.typeOf(v).dims != dims)
      return unimplemented(fusion.name + ": loop outputs of different shapes (" +
                           c.module.typeOf(values[0]).str() + ", " +
                           c.module.typeOf(v).str() + ")");
  const int64_t total = product(dims);

  CudaWriter w;
  openGridStrideLoop(w, total);
  const std::string linear = w.let(c.index_type, "(" + c.index_type + ")jft_i");
  Elemental elemental(w, c.module, c.function, fusion, c.input_params, c.index_type);
  const Index root = elemental.delinearize(dims, linear);
  for (size_t i = 0; i < values.size(); ++i) {
    const ir::ElementType element = c.module.typeOf(values[i]).element;
    JFT_ASSIGN_OR_RETURN(std::string v, elemental.emit(values[i], root));
    w.line(c.output_params[i] + "[" + linear + "] = " + toStorage(element, v) + ";");
  }
  w.close();

  FamilyKernel kernel;
  kernel.body = w.text();
  kernel.grid = blocksFor(c, total, kLoopThreads);
  kernel.num_warps = kLoopThreads / c.options.warp_size;
  return kernel;
}

StatusOr<const ir::Op*> groupOpOf(const KernelContext& c, ir::OpKind kind,
                                  const char* family) {
  const ir::Op* found = nullptr;
  for (size_t at : c.fusion.ops)
    if (c.function.body.ops.at(at).kind == kind) found = &c.function.body.ops.at(at);
  if (found == nullptr)
    return unimplemented(std::string("a ") + family + " group without a " + family);
  return found;
}

}  // namespace jft::codegen::native
