// openGpuPlatform: the CUDA platform.
#include "runtime/gpu_platform.h"

#include "runtime/gpu/cuda_platform.h"
#include "runtime/gpu/cupti_tracer.h"

namespace jft::runtime {

StatusOr<std::unique_ptr<Platform>> openGpuPlatform(
    const std::vector<int>& visibleOrdinals, const MemoryOptions& memory) {
  return gpu::openCudaPlatform(visibleOrdinals, memory);
}

StatusOr<std::unique_ptr<DeviceTracer>> openGpuDeviceTracer() {
  return gpu::openCuptiTracer();
}

}  // namespace jft::runtime
