#include "runtime/activity_scope.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>

namespace jft::runtime {
namespace {

// Step indices take the low bits; a program with more top-level steps than
// this shares the last label (its work is still tagged with its run).
constexpr int kStepBits = 20;
constexpr uint64_t kStepMask = (uint64_t{1} << kStepBits) - 1;

std::atomic<const ActivityScopeHooks*> installed{nullptr};

struct Run {
  std::string module;
  std::shared_ptr<const std::vector<std::string>> steps;
};

struct Labels {
  std::mutex mutex;
  uint64_t next_run = 1;
  std::map<uint64_t, Run> runs;
};

Labels& labels() {
  static Labels* table = new Labels();  // used from any thread until exit
  return *table;
}

}  // namespace

void setActivityScopeHooks(const ActivityScopeHooks* hooks) {
  installed.store(hooks, std::memory_order_release);
}

const ActivityScopeHooks* activityScopeHooks() {
  return installed.load(std::memory_order_acquire);
}

uint64_t beginActivityRun(const std::string& module,
                          std::shared_ptr<const std::vector<std::string>> steps) {
  Labels& table = labels();
  std::lock_guard<std::mutex> lock(table.mutex);
  const uint64_t run = table.next_run++;
  table.runs[run] = Run{module, std::move(steps)};
  return run;
}

uint64_t activityId(uint64_t run, size_t step) {
  const uint64_t index = std::min<uint64_t>(step + 1, kStepMask);
  return (run << kStepBits) | index;
}

std::optional<ActivityLabel> lookUpActivityLabel(uint64_t id) {
  Labels& table = labels();
  std::lock_guard<std::mutex> lock(table.mutex);
  auto found = table.runs.find(id >> kStepBits);
  if (found == table.runs.end()) return std::nullopt;
  ActivityLabel label{found->second.module, found->first, ""};
  const uint64_t index = id & kStepMask;
  if (index > 0 && found->second.steps && index <= found->second.steps->size())
    label.op = (*found->second.steps)[index - 1];
  return label;
}

void clearActivityLabels() {
  Labels& table = labels();
  std::lock_guard<std::mutex> lock(table.mutex);
  table.runs.clear();
}

}  // namespace jft::runtime
