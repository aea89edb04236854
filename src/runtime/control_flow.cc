// Executable's control flow: planning nested lists and running loops and
// conditionals. A loop with a known trip count is its body enqueued that many
// times, with no wait; any other loop or conditional waits for the queue to
// read its predicate or index on the host (a 1- or 4-byte copy waited for on
// the calling thread: Device::readToHost), the one sync point an execution has.
#include "runtime/control_flow.h"

#include <cstring>
#include <string>
#include <variant>

#include "runtime/executable.h"

namespace jft::runtime {

std::vector<const LaunchThunk*> launchesIn(const Program& program) {
  std::vector<const LaunchThunk*> out;
  auto add = [&](const std::vector<Thunk>& list) {
    for (const Thunk& thunk : list)
      if (const auto* launch = std::get_if<LaunchThunk>(&thunk)) out.push_back(launch);
  };
  add(program.thunks);
  for (const auto& list : program.lists) add(list);
  return out;
}

void Executable::planControl(const Program& program, const Thunk& thunk, Step& step) {
  if (const auto* loop = std::get_if<WhileThunk>(&thunk)) {
    Loop planned;
    planned.predicate = loop->predicate;
    planned.trip_count = loop->trip_count;
    // A known trip count never runs the condition.
    if (loop->trip_count < 0)
      planThunks(program, program.lists[loop->cond], planned.cond);
    planThunks(program, program.lists[loop->body], planned.body);
    if (loop->pingPong()) {
      planned.ping_pong = true;
      planned.odd_predicate = loop->odd_predicate;
      if (loop->trip_count < 0)
        planThunks(program, program.lists[loop->odd_cond], planned.odd_cond);
      planThunks(program, program.lists[loop->odd_body], planned.odd_body);
      planThunks(program, program.lists[loop->odd_exit], planned.odd_exit);
    }
    step.kind = Step::Kind::kWhile;
    step.control = static_cast<int>(loops_.size());
    loops_.push_back(std::move(planned));
    return;
  }
  const auto& conditional = std::get<ConditionalThunk>(thunk);
  Conditional planned;
  planned.index = conditional.index;
  planned.predicate = conditional.predicate;
  for (int branch : conditional.branches)
    planThunks(program, program.lists[branch], planned.branches.emplace_back());
  step.kind = Step::Kind::kConditional;
  step.control = static_cast<int>(conditionals_.size());
  conditionals_.push_back(std::move(planned));
}

Status Executable::enqueueList(std::span<const Step> steps, const std::string& where) {
  for (size_t i = 0; i < steps.size();) {
    if (GraphRun* run = graphRunAt(steps[i])) {
      JFT_RETURN_IF_ERROR(replay(*run, where));
      i += run->count;
      continue;
    }
    Status status = enqueueStep(steps[i]);
    if (!status.isOk())
      return status.withContext(where + "thunk " + std::to_string(steps[i].thunk));
    ++i;
  }
  return Status::ok();
}

StatusOr<int32_t> Executable::readScalar(int slot, uint64_t bytes) {
  uint8_t raw[sizeof(int32_t)] = {};
  JFT_RETURN_IF_ERROR(device_.readToHost(raw, slot_addresses_[slot], bytes));
  if (bytes == 1) return static_cast<int32_t>(raw[0]);
  int32_t value = 0;
  std::memcpy(&value, raw, sizeof(value));
  return value;
}

Status Executable::runLoop(const Loop& loop) {
  // Bodies run so far; with two sets of carried slots its parity says which
  // set holds the values.
  int64_t runs = 0;
  auto odd = [&] { return loop.ping_pong && (runs & 1) != 0; };
  auto body = [&] {
    return enqueueList(odd() ? loop.odd_body : loop.body, "while body ");
  };
  if (loop.trip_count >= 0) {
    for (; runs < loop.trip_count; ++runs) JFT_RETURN_IF_ERROR(body());
  } else {
    for (;; ++runs) {
      JFT_RETURN_IF_ERROR(enqueueList(odd() ? loop.odd_cond : loop.cond, "while cond "));
      StatusOr<int32_t> predicate =
          readScalar(odd() ? loop.odd_predicate : loop.predicate, 1);
      if (!predicate.isOk())
        return predicate.status().withContext("reading the while predicate");
      if (*predicate == 0) break;
      JFT_RETURN_IF_ERROR(body());
    }
  }
  if (odd()) return enqueueList(loop.odd_exit, "while exit ");
  return Status::ok();
}

Status Executable::runConditional(const Conditional& conditional) {
  StatusOr<int32_t> index =
      readScalar(conditional.index, conditional.predicate ? 1 : sizeof(int32_t));
  if (!index.isOk()) return index.status().withContext("reading the branch index");
  const auto last = static_cast<int32_t>(conditional.branches.size() - 1);
  int32_t branch = *index;
  if (conditional.predicate) branch = branch != 0 ? 0 : 1;
  if (branch < 0 || branch > last) branch = last;  // StableHLO: out of range -> last
  return enqueueList(conditional.branches[static_cast<size_t>(branch)],
                     "branch " + std::to_string(branch) + " ");
}

}  // namespace jft::runtime
