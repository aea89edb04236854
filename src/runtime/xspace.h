// A DeviceTrace as the serialized tensorflow.profiler.XSpace protobuf that
// jaxlib's plugin tracer parses and whose planes it merges beside its host
// planes (TensorBoard, Perfetto and jax.profiler.ProfileData read them).
// Names follow XLA's GPU tracer, which the tools key on: one plane per device
// "/device:GPU:<ordinal>" (id = ordinal, stat device_vendor), one line per
// stream "Stream #<id>", events named after the kernel (or MemcpyH2D, ...)
// with stats correlation_id, kernel_details / memcpy_details /
// Memset_details, hlo_module and hlo_op; and a derived "XLA Modules" line
// with one event per executable run and an "XLA Ops" line with one per step.
#pragma once

#include <string>
#include <string_view>

#include "runtime/device_trace.h"

namespace jft::runtime {

// The plane XLA names a GPU's activity by.
std::string gpuPlaneName(int ordinal);

// Lines start at trace.start_ns (the Unix-epoch clock of host events);
// activities outside [start_ns, end_ns] or ending before they start are
// left out and counted in a warning, as XLA's tracer does.
std::string encodeXSpace(const DeviceTrace& trace, std::string_view hostname);

}  // namespace jft::runtime
