#include "pjrt/profiler_session.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>

#include "runtime/xspace.h"
#include "support/proto_wire.h"

namespace jft::pjrt {
namespace {

constexpr int kDeviceTracerLevelField = 3;  // tensorflow.ProfileOptions

std::atomic<bool> warned{false};

void warnOnce(const std::string& reason) {
  if (warned.exchange(true)) return;
  std::fprintf(stderr,
               "jax-flagtree: the profile holds host events only, GPU activity is "
               "missing: %s\n",
               reason.c_str());
}

std::string hostname() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "";
  return name;
}

}  // namespace

bool warnedAboutMissingGpuActivity() {
  return warned.load();
}

bool deviceTracingRequested(std::string_view serialized_options) {
  if (serialized_options.empty()) return true;
  proto::Reader reader(serialized_options);
  uint64_t level = 0;
  while (!reader.done()) {
    auto field = reader.next();
    if (!field.isOk()) return true;  // unreadable: trace as if not asked
    if (field->number == kDeviceTracerLevelField && field->type == proto::kVarint)
      level = field->varint;
  }
  return level != 0;
}

void ProfilerSession::giveUpDevice(const Status& why) {
  tracer_.reset();
  missing_ = why.message();
  warnOnce(missing_);
}

void ProfilerSession::start() {
  if (running_) return;
  running_ = true;
  collected_ = false;
  bytes_.clear();
  missing_.clear();
  if (!trace_device_) return;
  if (tracer_ == nullptr) {
    auto opened = factory_();
    if (!opened.isOk()) return giveUpDevice(opened.status());
    tracer_ = std::move(opened).value();
  }
  Status started = tracer_->start();
  if (!started.isOk()) giveUpDevice(started);
}

void ProfilerSession::stop() {
  if (!running_) return;
  running_ = false;
  if (tracer_ == nullptr) return;
  Status stopped = tracer_->stop();
  if (!stopped.isOk()) giveUpDevice(stopped);
}

const std::string& ProfilerSession::collect() {
  if (collected_ || running_) return bytes_;
  runtime::DeviceTrace trace;
  if (tracer_ != nullptr) trace = tracer_->collect();
  if (!missing_.empty()) trace.warnings.push_back("GPU activity is missing: " + missing_);
  bytes_ = runtime::encodeXSpace(trace, hostname());
  collected_ = true;
  return bytes_;
}

}  // namespace jft::pjrt
