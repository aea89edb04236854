// How an execution tells a device tracer which run and which step enqueued
// the GPU work that follows, so the trace can show each run as a range and
// name library kernels after the step that called them. A tracer installs
// hooks (CUDA: CUPTI external correlation ids, runtime/gpu/cupti_tracer.cc);
// without one an execution pays one relaxed atomic load.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace jft::runtime {

struct ActivityScopeHooks {
  void (*push)(uint64_t id);  // the work enqueued until pop belongs to `id`
  void (*pop)();
};

// Null stops annotating. The hooks must outlive every execution that saw them.
void setActivityScopeHooks(const ActivityScopeHooks* hooks);
const ActivityScopeHooks* activityScopeHooks();

// Names a run of `module` whose top-level steps are `steps`; returns the run's
// serial (from 1). Kept until clearActivityLabels.
uint64_t beginActivityRun(const std::string& module,
                          std::shared_ptr<const std::vector<std::string>> steps);
// The id a step's work is tagged with: run serial and step index together.
uint64_t activityId(uint64_t run, size_t step);

struct ActivityLabel {
  std::string module;
  uint64_t run = 0;
  std::string op;
};
std::optional<ActivityLabel> lookUpActivityLabel(uint64_t id);
void clearActivityLabels();

// Pushes `id` for its lifetime when hooks are installed.
class ActivityScope {
 public:
  ActivityScope(const ActivityScopeHooks* hooks, uint64_t id) : hooks_(hooks) {
    if (hooks_ != nullptr) hooks_->push(id);
  }
  ~ActivityScope() {
    if (hooks_ != nullptr) hooks_->pop();
  }
  ActivityScope(const ActivityScope&) = delete;
  ActivityScope& operator=(const ActivityScope&) = delete;

 private:
  const ActivityScopeHooks* hooks_;
};

}  // namespace jft::runtime
