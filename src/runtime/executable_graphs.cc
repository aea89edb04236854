// Executable: runs of launches replayed as device graphs. Between two launches
// the device otherwise waits for the host's next call (a microsecond or two
// per kernel, a large share of a training step made of hundreds of short
// kernels, and most of a loop iteration whose body starts on an idle device
// after the predicate read); a graph hands it the whole run at once. Every
// step list is planned: the top level, loop conditions and bodies, branches.
// The arena is fixed at load, so a graph only changes where a launch reads a
// parameter or writes an output: those launches are updated when an
// execution's slots move.
#include <string>
#include <vector>

#include "runtime/executable.h"

namespace jft::runtime {
namespace {

// A shorter run gains less from a graph than recording it costs.
constexpr size_t kMinGraphLaunches = 4;

}  // namespace

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
  for (size_t first = 0; first < steps.size();) {
    size_t end = first;
    while (end < steps.size() && steps[end].kind == Step::Kind::kLaunch) ++end;
    if (end - first >= kMinGraphLaunches) {
      GraphRun run;
      run.first = &steps[first];
      run.count = end - first;
      for (size_t s = first; s < end; ++s)
        if (followed[static_cast<size_t>(steps[s].launch)])
          run.followed.push_back(static_cast<int>(s - first));
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
  auto launchAt = [&](size_t index) -> Launch& {
    return launches_[static_cast<size_t>(run.first[index].launch)];
  };
  auto described = [](Launch& launch) {
    return GraphLaunch{launch.kernel, launch.dims, launch.pointers.data()};
  };
  Status ready = Status::ok();
  if (run.graph == nullptr) {
    std::vector<GraphLaunch> launches;
    for (size_t i = 0; i < run.count; ++i) launches.push_back(described(launchAt(i)));
    StatusOr<GraphHandle> graph = device_.createLaunchGraph(launches);
    if (graph.isOk()) {
      run.graph = *graph;
      run.held.clear();
      for (int index : run.followed)
        run.held.push_back(launchAt(static_cast<size_t>(index)).values);
    } else {
      ready = graph.status();
    }
  } else {
    for (size_t f = 0; f < run.followed.size() && ready.isOk(); ++f) {
      Launch& launch = launchAt(static_cast<size_t>(run.followed[f]));
      if (launch.values == run.held[f]) continue;
      ready = device_.updateGraphLaunch(run.graph, static_cast<size_t>(run.followed[f]),
                                        described(launch));
      if (ready.isOk()) run.held[f] = launch.values;
    }
  }
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
