// openGpuPlatform: the CUDA platform.
#include "runtime/gpu_platform.h"

#include "runtime/gpu/cuda_platform.h"

namespace jft::runtime {

StatusOr<std::unique_ptr<Platform>> openGpuPlatform(
    const std::vector<int>& visibleOrdinals, const MemoryOptions& memory) {
  return gpu::openCudaPlatform(visibleOrdinals, memory);
}

}  // namespace jft::runtime
