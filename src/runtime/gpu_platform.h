// The GPU platform of this build, for callers that must not know its backend
// (src/pjrt): today every visible NVIDIA GPU through the CUDA driver
// (gpu/cuda_platform.h); a HIP build answers here with its own.
#pragma once

#include <memory>
#include <vector>

#include "runtime/device.h"
#include "support/status.h"

namespace jft::runtime {

// FAILED_PRECONDITION with a readable reason when there is no driver or no GPU.
// `visibleOrdinals` restricts the devices opened (empty means all).
StatusOr<std::unique_ptr<Platform>> openGpuPlatform(
    const std::vector<int>& visibleOrdinals);

}  // namespace jft::runtime
