// Executable: runs of launches (and of library products, where the device
// records them: Device::graphsRecordLibraryCalls) replayed as device graphs. Between two
// launches the device otherwise waits for the host's next call (a microsecond or two per
// kernel, a large share of a training step made of hundreds of short kernels, and most of
// a loop iteration whose body starts on an idle device after the predicate read); a graph
// hands it the whole run at once. Every step list is planned: the top level, loop
// conditions and bodies, branches. The arena is fixed at load, so a graph only changes
// where a launch reads a parameter or writes an output: those launches are updated when
// an execution's slots move.
#include <string>
#include <vector>

#include "runtime/executable.h"

namespace jft::runtime {
namespace {

// A shorter run (in launches and products) gains less from a graph than
// recording it costs.
constexpr size_t kMinGraphLaunches = 4;

}  // namespace

bool Executable::graphable(const Step& step) const {
  return step.kind == Step::Kind::kLaunch ||
         (step.kind == Step::Kind::kGemm && device_.graphsRecordLibraryCalls());
}

GraphLaunch Executable::graphItem(const Step& step) {
  GraphLaunch item;
  if (step.kind == Step::Kind::kLaunch) {
    Launch& launch = launches_[static_cast<size_t>(step.launch)];
    item.kernel = launch.kernel;
    item.dims = launch.dims;
    item.params = launch.pointers.data();
  } else {
    const GemmThunk& gemm = gemms_[static_cast<size_t>(step.gemm)];
    item.enqueue = [this, &gemm] { return enqueueGemm(gemm); };
  }
  return item;
}

std::vector<uint64_t> Executable::graphValues(const Step& step) const {
  if (step.kind == Step::Kind::kLaunch)
    return launches_[static_cast<size_t>(step.launch)].values;
  const std::array<uint64_t, 4> at =
      gemmAddresses(gemms_[static_cast<size_t>(step.gemm)]);
  return {at.begin(), at.end()};
}

void Executable::planGraphRuns() {
  if (device_.launchGraphsFrom() <= 0) return;
  std::vector<bool> followed(launches_.size(), false);
  for (const Patch& patch : patches_) followed[static_cast<size_t>(patch.launch)] = true;
  planGraphRuns(steps_, followed);
  for (const Loop& loop : loops_)
    for (const auto* list :
         {&loop.cond, &loop.body, &loop.odd_cond, &loop.odd_body, &loop.odd_exit})
      planGraphRuns(*list, followed);
  for (const Conditional& conditional : conditionals_)
    for (const std::vector<Step>& branch : conditional.branches)
      planGraphRuns(branch, followed);
  for (size_t r = 0; r < graph_runs_.size(); ++r) graph_run_at_[graph_runs_[r].first] = r;
}

void Executable::planGraphRuns(const std::vector<Step>& steps,
                               const std::vector<bool>& followed) {
  auto follows = [&](const Step& step) {
    if (step.kind == Step::Kind::kLaunch)
      return bool(followed[static_cast<size_t>(step.launch)]);
    const GemmThunk& gemm = gemms_[static_cast<size_t>(step.gemm)];
    return dynamicSlot(gemm.a) || dynamicSlot(gemm.b) || dynamicSlot(gemm.d) ||
           dynamicSlot(gemm.bias);
  };
  for (size_t first = 0; first < steps.size();) {
    size_t end = first;
    while (end < steps.size() && graphable(steps[end])) ++end;
    if (end - first >= kMinGraphLaunches) {
      GraphRun run;
      run.first = &steps[first];
      run.count = end - first;
      for (size_t s = first; s < end; ++s)
        if (follows(steps[s])) run.followed.push_back(static_cast<int>(s - first));
      graph_runs_.push_back(std::move(run));
    }
    first = end == first ? first + 1 : end;
  }
}

Executable::GraphRun* Executable::graphRunAt(const Step& step) {
  if (!replaying_) return nullptr;
  auto it = graph_run_at_.find(&step);
  return it == graph_run_at_.end() ? nullptr : &graph_runs_[it->second];
}

Status Executable::replay(GraphRun& run, const std::string& where) {
  Status ready = Status::ok();
  if (run.graph == nullptr) {
    std::vector<GraphLaunch> items;
    for (size_t i = 0; i < run.count; ++i) items.push_back(graphItem(run.first[i]));
    StatusOr<GraphHandle> graph = device_.createLaunchGraph(items);
    if (graph.isOk()) {
      run.graph = *graph;
      run.held.clear();
      for (int index : run.followed)
        run.held.push_back(graphValues(run.first[static_cast<size_t>(index)]));
    } else {
      ready = graph.status();
    }
  } else if (run.synced != executions_) {
    for (size_t f = 0; f < run.followed.size() && ready.isOk(); ++f) {
      const Step& step = run.first[static_cast<size_t>(run.followed[f])];
      std::vector<uint64_t> values = graphValues(step);
      if (values == run.held[f]) continue;
      ready = device_.updateGraphLaunch(run.graph, static_cast<size_t>(run.followed[f]),
                                        graphItem(step));
      if (ready.isOk()) run.held[f] = std::move(values);
    }
  }
  run.synced = executions_;
  const std::span<const Step> steps(run.first, run.count);
  if (ready.isOk()) {
    Status launched = device_.launchGraph(run.graph);
    if (launched.isOk()) return launched;
    return launched.withContext(where + "the graph of thunks " +
                                std::to_string(steps.front().thunk) + " to " +
                                std::to_string(steps.back().thunk));
  }
  // A graph only saves time: where the device cannot make or update one, the
  // program's launches go one by one from now on.
  graphs_refused_ = true;
  replaying_ = false;
  destroyGraphs();
  return enqueueList(steps, where);
}

void Executable::destroyGraphs() {
  for (GraphRun& run : graph_runs_) {
    if (run.graph != nullptr) device_.destroyGraph(run.graph);
    run.graph = nullptr;
  }
}

}  // namespace jft::runtime
