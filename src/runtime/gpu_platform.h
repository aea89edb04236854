// The GPU platform of this build, for callers that must not know its backend
// (src/pjrt): today every visible NVIDIA GPU through the CUDA driver
// (gpu/cuda_platform.h); a HIP build answers here with its own.
#pragma once

#include <memory>
#include <vector>

#include "runtime/device.h"
#include "runtime/device_trace.h"
#include "runtime/memory_budget.h"
#include "support/status.h"

namespace jft::runtime {

// FAILED_PRECONDITION with a readable reason when there is no driver or no GPU.
// `visibleOrdinals` restricts the devices opened (empty means all); `memory`
// is how every device hands out memory.
StatusOr<std::unique_ptr<Platform>> openGpuPlatform(
    const std::vector<int>& visibleOrdinals, const MemoryOptions& memory = {});

// The GPU's activity tracer (CUDA: CUPTI, runtime/gpu/cupti_tracer.h);
// UNAVAILABLE saying what is missing and how to supply it.
StatusOr<std::unique_ptr<DeviceTracer>> openGpuDeviceTracer();

}  // namespace jft::runtime
