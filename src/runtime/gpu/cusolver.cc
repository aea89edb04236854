// cuSOLVER / cuBLAS loading and the solver runner.
#include "runtime/gpu/cusolver.h"

namespace jft::runtime::gpu {

StatusOr<std::unique_ptr<SolverRunner>> SolverRunner::create(CudaDevice&) {
  return unimplemented("the cuSOLVER runner is not built yet");
}

}  // namespace jft::runtime::gpu
