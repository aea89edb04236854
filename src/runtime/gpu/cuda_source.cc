// CudaDevice's runtime compilation of kernel source: NVRTC for the device's
// compute capability.
#include "runtime/gpu/cuda_device.h"
#include "runtime/gpu/nvrtc.h"

namespace jft::runtime::gpu {
namespace {

int archOf(const DeviceInfo& info) {
  return info.compute_major * 10 + info.compute_minor;
}

}  // namespace

StatusOr<std::string> CudaDevice::sourceCompiler() {
  JFT_ASSIGN_OR_RETURN(NvrtcVersion version, nvrtcVersion());
  return "nvrtc " + std::to_string(version.major) + "." + std::to_string(version.minor) +
         " sm_" + std::to_string(archOf(info_));
}

StatusOr<std::string> CudaDevice::compileSource(const std::string& source,
                                                const std::string& name) {
  return compileToCubin(source, name, archOf(info_));
}

}  // namespace jft::runtime::gpu
