// CudaPlatform: every visible NVIDIA GPU, opened through the CUDA driver.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/device.h"
#include "runtime/memory_budget.h"
#include "support/status.h"

namespace jft::runtime::gpu {

// FAILED_PRECONDITION with a readable reason when there is no driver or no GPU.
// `visibleOrdinals` restricts the devices opened (empty means all).
StatusOr<std::unique_ptr<Platform>> openCudaPlatform(
    const std::vector<int>& visibleOrdinals, const MemoryOptions& memory = {});

// The client's platform version for a cuDriverGetVersion value (13000 is 13.0):
// "cuda 13.0 (jax-flagtree, driver API) 13000". It ends in the integer version, as
// upstream's "cuda <CUDART_VERSION>" does, because JAX and its tests read the last
// word as a number; "driver API" tells our client from upstream's.
std::string cudaPlatformVersion(int driverVersion);

}  // namespace jft::runtime::gpu
