// convolution -> kernels + GEMM.
#include "compiler/convolution_call.h"

namespace jft::compiler {

Status checkConvolution(const ir::Module&, const ir::Op&) {
  return unimplemented("no library route for convolution yet");
}

StatusOr<LibraryCall> lowerConvolution(ir::Module&, const fusion::Fusion& group,
                                       const ir::Op&) {
  return internalError(group.name + ": convolution has no lowering");
}

}  // namespace jft::compiler
