// What a device tracer hands the profiler: the GPU's activities (kernels,
// copies, fills) in the host profiler's clock, nanoseconds since the Unix
// epoch, so they line up with the host events jaxlib records; and the
// interface a backend implements to collect them (CUDA: runtime/gpu/cupti_tracer.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/status.h"

namespace jft::runtime {

enum class ActivityKind : uint8_t { kKernel, kMemcpy, kMemset };

struct DeviceActivity {
  ActivityKind kind = ActivityKind::kKernel;
  std::string name;  // the kernel's entry point, or "MemcpyH2D", "Memset", ...
  int device = 0;    // ordinal
  uint32_t stream = 0;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint32_t correlation_id = 0;
  // XLA's text for the kind: kernel_details (grid, block, registers, shared
  // memory), memcpy_details or Memset_details (kinds, bytes, async).
  std::string details;
  // The executable run that enqueued it (activity_scope.h), "" when none.
  std::string module;
  uint64_t run = 0;
  std::string op;  // the step of that run (its kernel, library call, copy)
};

struct DeviceTrace {
  uint64_t start_ns = 0;  // when tracing started and stopped, host clock
  uint64_t end_ns = 0;
  std::vector<int> devices;  // each gets a plane, even without activity
  std::vector<DeviceActivity> activities;
  std::vector<std::string> warnings;  // e.g. records dropped
};

// One tracing session at a time per process: start, stop, then collect.
class DeviceTracer {
 public:
  virtual ~DeviceTracer() = default;
  virtual Status start() = 0;
  virtual Status stop() = 0;
  // What was recorded between start and stop (empty before a stop).
  virtual DeviceTrace collect() = 0;
};

}  // namespace jft::runtime
