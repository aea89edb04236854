// cuFFT loading and the FFT runner.
#include "runtime/gpu/cufft.h"

namespace jft::runtime::gpu {

StatusOr<std::unique_ptr<FftRunner>> FftRunner::create(CudaDevice&) {
  return unimplemented("the cuFFT runner is not built yet");
}

}  // namespace jft::runtime::gpu
