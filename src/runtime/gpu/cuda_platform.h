// CudaPlatform: every visible NVIDIA GPU, opened through the CUDA driver.
#pragma once

#include <memory>
#include <vector>

#include "runtime/device.h"
#include "runtime/memory_budget.h"
#include "support/status.h"

namespace jft::runtime::gpu {

// FAILED_PRECONDITION with a readable reason when there is no driver or no GPU.
// `visibleOrdinals` restricts the devices opened (empty means all).
StatusOr<std::unique_ptr<Platform>> openCudaPlatform(
    const std::vector<int>& visibleOrdinals, const MemoryOptions& memory = {});

}  // namespace jft::runtime::gpu
