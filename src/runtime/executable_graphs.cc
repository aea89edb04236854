// Executable: runs of top-level launches replayed as device graphs. Between two
// launches the device otherwise waits for the host's next call (a microsecond
// or two per kernel, a large share of a training step made of hundreds of
// short kernels); a graph hands it the whole run at once. The arena is fixed
// at load, so a graph only changes where a launch reads a parameter or writes
// an output: those launches are updated when an execution's slots move.
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
  for (size_t first = 0; first < steps_.size();) {
    size_t end = first;
    while (end < steps_.size() && steps_[end].kind == Step::Kind::kLaunch) ++end;
    if (end - first >= kMinGraphLaunches) {
      GraphRun run;
      run.first = first;
      run.count = end - first;
      for (size_t s = first; s < end; ++s)
        if (followed[static_cast<size_t>(steps_[s].launch)])
          run.followed.push_back(static_cast<int>(s - first));
      graph_runs_.push_back(std::move(run));
    }
    first = end == first ? first + 1 : end;
  }
}

Status Executable::enqueueWithGraphs(const std::string& where) {
  const int from = device_.launchGraphsFrom();
  if (graph_runs_.empty() || executions_ < from) return enqueueList(steps_, where);
  const std::span<const Step> steps(steps_);
  size_t next = 0;
  for (GraphRun& run : graph_runs_) {
    JFT_RETURN_IF_ERROR(enqueueList(steps.subspan(next, run.first - next), where));
    JFT_RETURN_IF_ERROR(graphs_refused_
                            ? enqueueList(steps.subspan(run.first, run.count), where)
                            : replay(run, where));
    next = run.first + run.count;
  }
  return enqueueList(steps.subspan(next), where);
}

Status Executable::replay(GraphRun& run, const std::string& where) {
  auto launchAt = [&](size_t index) -> Launch& {
    return launches_[static_cast<size_t>(steps_[run.first + index].launch)];
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
  if (ready.isOk()) {
    Status launched = device_.launchGraph(run.graph);
    if (launched.isOk()) return launched;
    return launched.withContext(where + "the graph of thunks " +
                                std::to_string(steps_[run.first].thunk) + " to " +
                                std::to_string(steps_[run.first + run.count - 1].thunk));
  }
  // A graph only saves time: where the device cannot make or update one, the
  // program's launches go one by one from now on.
  graphs_refused_ = true;
  destroyGraphs();
  return enqueueList(std::span<const Step>(steps_).subspan(run.first, run.count), where);
}

void Executable::destroyGraphs() {
  for (GraphRun& run : graph_runs_) {
    if (run.graph != nullptr) device_.destroyGraph(run.graph);
    run.graph = nullptr;
  }
}

}  // namespace jft::runtime
