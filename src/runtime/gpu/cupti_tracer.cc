#include "runtime/gpu/cupti_tracer.h"

#include <chrono>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/activity_scope.h"
#include "runtime/gpu/cupti_api.h"
#include "runtime/gpu/cupti_records.h"
#include "runtime/gpu/library_loader.h"

namespace jft::runtime::gpu {
namespace {

struct Cupti {
  std::string library_name;
  JFT_ENTRY_POINTS(JFT_CUPTI_FUNCTIONS)
};

StatusOr<Cupti*> openCupti() {
  return openVendorLibrary<Cupti>(
      "JFT_CUPTI_LIBRARY", {"libcupti.so.13", "libcupti.so.12", "libcupti.so"}, "CUPTI",
      "the nvidia-cuda-cupti wheel (jax[cuda13] installs it)");
}

constexpr size_t kBufferBytes = size_t{8} << 20;
// Beyond this many activities a session keeps counting but stops storing.
constexpr size_t kMaxActivities = size_t{4} << 20;
constexpr CUpti_ActivityKind kKinds[] = {
    kCuptiActivityKindConcurrentKernel, kCuptiActivityKindMemcpy,
    kCuptiActivityKindMemset, kCuptiActivityKindExternalCorrelation,
    kCuptiActivityKindDriver};

// Records that become a DeviceActivity, so count against kMaxActivities.
bool becomesActivity(CUpti_ActivityKind kind) {
  return kind != kCuptiActivityKindExternalCorrelation &&
         kind != kCuptiActivityKindDriver;
}

uint64_t hostNowNs() {
  // The clock of jaxlib's host events (tsl's wall clock, CLOCK_REALTIME).
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

// CUPTI's callbacks are plain functions: the session state is process-wide,
// as CUPTI's own is.
struct Session {
  std::mutex mutex;
  const Cupti* cupti = nullptr;
  bool callbacks_registered = false;
  bool active = false;
  CuptiRecords records;
  uint64_t dropped = 0;
};

Session& session() {
  static Session* state = new Session();  // CUPTI may call back until exit
  return *state;
}

void requestBuffer(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

void completeBuffer(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  Session& s = session();
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    CUpti_Activity* record = nullptr;
    while (s.cupti != nullptr &&
           s.cupti->activityGetNextRecord(buffer, valid, &record) == kCuptiSuccess) {
      if (s.records.activities.size() >= kMaxActivities &&
          becomesActivity(record->kind)) {
        ++s.dropped;
        continue;
      }
      addCuptiRecord(*record, s.records);
    }
  }
  std::free(buffer);
}

void pushScope(uint64_t id) {
  const Cupti* cupti = session().cupti;
  cupti->activityPushExternalCorrelationId(kCuptiExternalCorrelationCustom1, id);
}

void popScope() {
  uint64_t last = 0;
  session().cupti->activityPopExternalCorrelationId(kCuptiExternalCorrelationCustom1,
                                                    &last);
}

const ActivityScopeHooks kHooks{&pushScope, &popScope};

class CuptiTracer : public DeviceTracer {
 public:
  explicit CuptiTracer(const Cupti* cupti) : cupti_(cupti) {}
  ~CuptiTracer() override {
    if (started_) (void)stop();
  }

  Status start() override {
    Session& s = session();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.active)
      return failedPrecondition("a GPU trace is already running in this process");
    s.cupti = cupti_;
    if (!s.callbacks_registered) {
      JFT_RETURN_IF_ERROR(
          check(cupti_->activityRegisterCallbacks(&requestBuffer, &completeBuffer),
                "cuptiActivityRegisterCallbacks"));
      s.callbacks_registered = true;
    }
    s.records = CuptiRecords{};
    s.dropped = 0;
    for (size_t i = 0; i < std::size(kKinds); ++i) {
      Status enabled = check(cupti_->activityEnable(kKinds[i]), "cuptiActivityEnable");
      if (!enabled.isOk()) {
        // Another CUPTI client (a second profiler, Nsight) may hold the
        // activity API: leave CUPTI as we found it.
        for (size_t j = 0; j < i; ++j) cupti_->activityDisable(kKinds[j]);
        return enabled;
      }
    }
    const uint64_t before = hostNowNs();
    uint64_t cupti_now = 0;
    cupti_->getTimestamp(&cupti_now);
    offset_ns_ = cuptiToHostOffset(before, cupti_now, hostNowNs());
    start_ns_ = before;
    clearActivityLabels();
    setActivityScopeHooks(&kHooks);
    s.active = true;
    started_ = true;
    return Status::ok();
  }

  Status stop() override {
    if (!started_) return Status::ok();
    setActivityScopeHooks(nullptr);
    // Flushing delivers every buffer through completeBuffer, which locks.
    cupti_->activityFlushAll(kCuptiActivityFlagFlushForced);
    Session& s = session();
    std::lock_guard<std::mutex> lock(s.mutex);
    for (CUpti_ActivityKind kind : kKinds) cupti_->activityDisable(kind);
    end_ns_ = hostNowNs();
    records_ = std::move(s.records);
    s.records = CuptiRecords{};
    dropped_ = s.dropped;
    s.active = false;
    started_ = false;
    stopped_ = true;
    return Status::ok();
  }

  DeviceTrace collect() override {
    DeviceTrace trace;
    if (!stopped_) return trace;
    trace.start_ns = start_ns_;
    trace.end_ns = end_ns_;
    for (DeviceActivity& a : records_.activities) {
      a.start_ns = static_cast<uint64_t>(static_cast<int64_t>(a.start_ns) + offset_ns_);
      a.end_ns = static_cast<uint64_t>(static_cast<int64_t>(a.end_ns) + offset_ns_);
      auto link = records_.external_ids.find(a.correlation_id);
      if (link != records_.external_ids.end()) {
        if (auto label = lookUpActivityLabel(link->second)) {
          a.module = label->module;
          a.run = label->run;
          a.op = label->op;
        }
      }
      bool known = false;
      for (int d : trace.devices) known = known || d == a.device;
      if (!known) trace.devices.push_back(a.device);
    }
    trace.activities = std::move(records_.activities);
    if (dropped_ > 0)
      trace.warnings.push_back(std::to_string(dropped_) +
                               " GPU activities were dropped: more than " +
                               std::to_string(kMaxActivities) + " in one trace");
    records_ = CuptiRecords{};
    stopped_ = false;
    return trace;
  }

 private:
  Status check(CUptiResult result, const char* call) const {
    if (result == kCuptiSuccess) return Status::ok();
    const char* text = nullptr;
    cupti_->getResultString(result, &text);
    return unavailable(
        std::string(call) +
        " failed: " + (text != nullptr ? text : "CUPTI error " + std::to_string(result)) +
        " (is another profiler, e.g. Nsight Systems, attached to this "
        "process?)");
  }

  const Cupti* cupti_;
  bool started_ = false;
  bool stopped_ = false;
  int64_t offset_ns_ = 0;
  uint64_t start_ns_ = 0;
  uint64_t end_ns_ = 0;
  CuptiRecords records_;
  uint64_t dropped_ = 0;
};

}  // namespace

std::span<const CUpti_ActivityKind> cuptiActivityKinds() {
  return kKinds;
}

int64_t cuptiToHostOffset(uint64_t host_before, uint64_t cupti, uint64_t host_after) {
  const uint64_t host = host_before + (host_after - host_before) / 2;
  return static_cast<int64_t>(host) - static_cast<int64_t>(cupti);
}

StatusOr<std::unique_ptr<DeviceTracer>> openCuptiTracer() {
  JFT_ASSIGN_OR_RETURN(const Cupti* cupti, loadOnce<Cupti>(&openCupti));
  return std::unique_ptr<DeviceTracer>(new CuptiTracer(cupti));
}

}  // namespace jft::runtime::gpu
