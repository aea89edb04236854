// The CUDA device tracer: GPU activity through the CUPTI Activity API
// (libcupti opened with dlopen: $JFT_CUPTI_LIBRARY, which our Python
// registration points at the nvidia-cuda-cupti wheel, then the soname).
// Records kernels, copies and fills between start and stop, ties each to the
// run and step that enqueued it (external correlation ids pushed by the
// executable's activity scopes), and hands them over in the host clock.
#pragma once

#include <memory>
#include <span>

#include "runtime/device_trace.h"
#include "runtime/gpu/cupti_api.h"
#include "support/status.h"

namespace jft::runtime::gpu {

// UNAVAILABLE naming the files tried when no libcupti loads.
StatusOr<std::unique_ptr<DeviceTracer>> openCuptiTracer();

// The activity kinds a trace enables: kernels, copies, fills, external
// correlations, and the driver API, since CUPTI writes an external
// correlation record only beside an API record (cupti_activity.h,
// cuptiActivityPushExternalCorrelationId); the API records themselves are
// dropped as they arrive.
std::span<const CUpti_ActivityKind> cuptiActivityKinds();

// Host clock minus CUPTI clock from a reading of each: host_before and
// host_after bracket the CUPTI reading, whose time is taken as their midpoint
// (XLA pairs one wall-clock and one cuptiGetTimestamp reading at start the
// same way, with no midpoint).
int64_t cuptiToHostOffset(uint64_t host_before, uint64_t cupti, uint64_t host_after);

}  // namespace jft::runtime::gpu
