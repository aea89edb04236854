// One jax.profiler trace as our plugin sees it (the PLUGIN_Profiler behind
// the profiler extension): the GPU's activity, if a device tracer can be
// had, collected between start and stop and serialized as an XSpace whose
// planes jaxlib merges beside its host planes. Never fails the user's trace:
// without CUPTI (none found, or refused because another profiler holds it)
// the session still starts, stops and collects (an XSpace without GPU planes,
// carrying the reason as a warning), and a one-time warning on stderr says
// why GPU activity is missing.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "runtime/device_trace.h"
#include "support/status.h"

namespace jft::pjrt {

using DeviceTracerFactory =
    std::function<StatusOr<std::unique_ptr<runtime::DeviceTracer>>()>;

// What we read of a serialized tensorflow.ProfileOptions: device tracing is
// off when device_tracer_level (field 3) is 0, as XLA's GPU tracer reads it;
// empty or unreadable options leave it on.
bool deviceTracingRequested(std::string_view serialized_options);

class ProfilerSession {
 public:
  ProfilerSession(bool trace_device, DeviceTracerFactory factory)
      : trace_device_(trace_device), factory_(std::move(factory)) {}

  void start();  // a second start while running is ignored, as XLA's is
  void stop();
  // The serialized XSpace of the last start..stop (computed once per stop).
  const std::string& collect();
  // Why GPU activity is missing from this session ("" when it is not).
  const std::string& missingReason() const { return missing_; }

 private:
  void giveUpDevice(const Status& why);

  bool trace_device_;
  DeviceTracerFactory factory_;
  std::unique_ptr<runtime::DeviceTracer> tracer_;
  bool running_ = false;
  bool collected_ = false;
  std::string missing_;
  std::string bytes_;
};

// The one-time stderr warning (tests read whether it was given).
bool warnedAboutMissingGpuActivity();

}  // namespace jft::pjrt
