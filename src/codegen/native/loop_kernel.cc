// The loop family: a grid-stride loop over the outputs' elements, every
// output computed at each linear index through the elemental emitter.
#include <algorithm>

#include "codegen/native/c_types.h"
#include "codegen/native/elemental.h"
#include "codegen/native/family_kernels.h"

namespace jft::codegen::native {

namespace {
constexpr int kLoopThreads = 256;
}

StatusOr<FamilyKernel> emitLoopBody(const KernelContext& c) {
  const fusion::Fusion& fusion = c.fusion;
  if (fusion.outputs.empty())
    return unimplemented(fusion.name + ": a loop group without outputs");
  const std::vector<int64_t> dims = c.module.typeOf(fusion.outputs[0]).dims;
  for (ir::ValueId out : fusion.outputs)
    if (c.module.typeOf(out).dims != dims)
      return unimplemented(fusion.name + ": loop outputs of different shapes (" +
                           c.module.typeOf(fusion.outputs[0]).str() + ", " +
                           c.module.typeOf(out).str() + ")");
  int64_t total = 1;
  for (int64_t d : dims) total *= d;

  CudaWriter w;
  w.open("for (jft_i64 jft_i = (jft_i64)blockIdx.x * blockDim.x + threadIdx.x; jft_i < " +
         std::to_string(total) + "ll; jft_i += (jft_i64)gridDim.x * blockDim.x) {");
  const std::string linear = w.let(c.index_type, "(" + c.index_type + ")jft_i");
  Elemental elemental(w, c.module, c.function, fusion, c.input_params, c.index_type);
  const Index root = elemental.delinearize(dims, linear);
  for (size_t i = 0; i < fusion.outputs.size(); ++i) {
    const ir::ElementType element = c.module.typeOf(fusion.outputs[i]).element;
    JFT_ASSIGN_OR_RETURN(std::string v, elemental.emit(fusion.outputs[i], root));
    w.line(c.output_params[i] + "[" + linear + "] = " + toStorage(element, v) + ";");
  }
  w.close();

  FamilyKernel kernel;
  kernel.body = w.text();
  const int64_t blocks = (total + kLoopThreads - 1) / kLoopThreads;
  kernel.grid = static_cast<uint32_t>(
      std::min<int64_t>(blocks, static_cast<int64_t>(c.options.max_blocks)));
  kernel.num_warps = kLoopThreads / c.options.warp_size;
  return kernel;
}

}  // namespace jft::codegen::native
