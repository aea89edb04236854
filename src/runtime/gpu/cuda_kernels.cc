// CudaDevice: kernel modules, launches and the thunk-level copy/fill, all
// queue-ordered on the device's stream without an event each.
#include <memory>
#include <string>

#include "runtime/gpu/cuda_device.h"
#include "runtime/gpu/cuda_kernel.h"

namespace jft::runtime::gpu {
namespace {

// Above this, a kernel must opt in to its dynamic shared memory.
constexpr uint32_t kDefaultSharedLimit = 48 * 1024;

}  // namespace

StatusOr<KernelHandle> CudaDevice::loadKernel(const KernelImage& image) {
  if (image.shared_mem > static_cast<uint32_t>(max_shared_per_block_)) {
    return invalidArgument("kernel '" + image.name + "' needs " +
                           std::to_string(image.shared_mem) +
                           " bytes of shared memory; " + info_.name + " allows " +
                           std::to_string(max_shared_per_block_) + " per block");
  }
  JFT_RETURN_IF_ERROR(makeCurrent());
  auto kernel = std::make_unique<CudaKernel>();
  kernel->name = image.name;
  const std::string context = "loading kernel '" + image.name + "'";
  // std::string keeps a terminating NUL, which PTX text needs.
  Status loaded = driver_.check(
      driver_.moduleLoadData(&kernel->module, image.binary.c_str()), "cuModuleLoadData");
  if (!loaded.isOk()) return loaded.withContext(context);
  Status status = driver_.check(
      driver_.moduleGetFunction(&kernel->function, kernel->module, image.name.c_str()),
      "cuModuleGetFunction");
  if (status.isOk() && image.shared_mem > kDefaultSharedLimit) {
    status = driver_.check(
        driver_.funcSetAttribute(kernel->function, kFuncAttrMaxDynamicSharedSizeBytes,
                                 static_cast<int>(image.shared_mem)),
        "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
  }
  if (!status.isOk()) {
    driver_.moduleUnload(kernel->module);
    return status.withContext(context);
  }
  return static_cast<KernelHandle>(kernel.release());
}

void CudaDevice::unloadKernel(KernelHandle handle) {
  if (handle == nullptr) return;
  auto* kernel = const_cast<CudaKernel*>(static_cast<const CudaKernel*>(handle));
  if (!makeCurrent().isOk()) return;
  releaseAfterQueuedWork([this, kernel] {
    driver_.moduleUnload(kernel->module);
    delete kernel;
  });
}

Status CudaDevice::launchKernel(KernelHandle handle, const LaunchDims& dims,
                                void** params) {
  const auto* kernel = static_cast<const CudaKernel*>(handle);
  JFT_RETURN_IF_ERROR(makeCurrent());
  CUresult result = driver_.launchKernel(kernel->function, dims.grid[0], dims.grid[1],
                                         dims.grid[2], dims.block_threads, 1, 1,
                                         dims.shared_mem, stream_, params, nullptr);
  if (result == kCudaSuccess) return Status::ok();
  return driver_.check(result, "cuLaunchKernel")
      .withContext("kernel '" + kernel->name + "' (grid " + std::to_string(dims.grid[0]) +
                   "x" + std::to_string(dims.grid[1]) + "x" +
                   std::to_string(dims.grid[2]) + ", " +
                   std::to_string(dims.block_threads) + " threads, " +
                   std::to_string(dims.shared_mem) + " bytes shared)");
}

Status CudaDevice::copyOnDevice(uint64_t dst, uint64_t src, uint64_t bytes) {
  if (bytes == 0) return Status::ok();
  JFT_RETURN_IF_ERROR(makeCurrent());
  return driver_.check(
      driver_.memcpyDtoDAsync(static_cast<CUdeviceptr>(dst),
                              static_cast<CUdeviceptr>(src), bytes, stream_),
      "cuMemcpyDtoDAsync");
}

Status CudaDevice::fill(uint64_t dst, uint8_t value, uint64_t bytes) {
  if (bytes == 0) return Status::ok();
  JFT_RETURN_IF_ERROR(makeCurrent());
  return driver_.check(
      driver_.memsetD8Async(static_cast<CUdeviceptr>(dst), value, bytes, stream_),
      "cuMemsetD8Async");
}

}  // namespace jft::runtime::gpu
