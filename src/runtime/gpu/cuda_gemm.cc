// CudaDevice::gemm: library products through one cuBLASLt runner per device,
// enqueued on the device's stream like every other operation.
#include "runtime/gpu/cublaslt.h"
#include "runtime/gpu/cuda_device.h"

namespace jft::runtime::gpu {

Status CudaDevice::gemm(const GemmDesc& desc, uint64_t a, uint64_t b, uint64_t d,
                        uint64_t bias) {
  GemmRunner* runner = nullptr;
  {
    // Executions on several threads may reach the first product together. A
    // failed creation (no cuBLASLt, no memory for the workspace) is not
    // remembered: the next product tries again.
    std::lock_guard<std::mutex> lock(gemm_mutex_);
    if (gemm_ == nullptr) {
      auto created = GemmRunner::create(*this);
      if (!created.isOk())
        return created.status().withContext("cuBLASLt on " + info_.name);
      gemm_ = std::move(created).value();
    }
    runner = gemm_.get();
  }
  return runner->run(desc, GemmBuffers{a, b, d, bias});
}

}  // namespace jft::runtime::gpu
