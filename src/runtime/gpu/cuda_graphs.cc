// CudaDevice: launch graphs as CUDA graphs, each node after the one before
// (the order a stream would give them), instantiated once and replayed on the
// device's stream. A kernel is a kernel node, whose parameter values the
// driver copies when the node is made or updated, as cuLaunchKernel copies
// them; a library call (JFT_CUDA_GRAPHS_LIBRARY=1) is a child graph recorded
// by stream capture, recorded again when its arguments move.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/gpu/cuda_device.h"
#include "runtime/gpu/cuda_kernel.h"

namespace jft::runtime::gpu {
namespace {

// The stream this thread's library calls go to while it records one.
thread_local const CudaDevice* t_capturing = nullptr;
thread_local CUstream t_capture_stream = nullptr;

struct CudaGraph {
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
  std::vector<CUgraphNode> nodes;
};

CudaKernelNodeParams nodeParams(const GraphLaunch& launch) {
  const auto* kernel = static_cast<const CudaKernel*>(launch.kernel);
  CudaKernelNodeParams params;
  params.func = kernel->function;
  params.gridDimX = launch.dims.grid[0];
  params.gridDimY = launch.dims.grid[1];
  params.gridDimZ = launch.dims.grid[2];
  params.blockDimX = launch.dims.block_threads;
  params.sharedMemBytes = launch.dims.shared_mem;
  params.kernelParams = launch.params;
  return params;
}

std::string kernelName(const GraphLaunch& launch) {
  if (launch.enqueue) return "library call";
  return static_cast<const CudaKernel*>(launch.kernel)->name;
}

void release(const Driver& driver, CudaGraph* graph) {
  if (graph->exec != nullptr) driver.graphs.graphExecDestroy(graph->exec);
  if (graph->graph != nullptr) driver.graphs.graphDestroy(graph->graph);
  delete graph;
}

using Capture = std::function<StatusOr<CUgraph>(const GraphLaunch&)>;

Status build(const Driver& driver, std::span<const GraphLaunch> launches,
             const Capture& capture, CudaGraph& graph) {
  const Driver::Graphs& api = driver.graphs;
  JFT_RETURN_IF_ERROR(driver.check(api.graphCreate(&graph.graph, 0), "cuGraphCreate"));
  for (const GraphLaunch& launch : launches) {
    const CUgraphNode* after = graph.nodes.empty() ? nullptr : &graph.nodes.back();
    CUgraphNode node = nullptr;
    if (launch.enqueue) {
      JFT_ASSIGN_OR_RETURN(CUgraph child, capture(launch));
      Status added = driver.check(
          api.graphAddChildGraphNode(&node, graph.graph, after, after ? 1 : 0, child),
          "cuGraphAddChildGraphNode");
      api.graphDestroy(child);  // the node holds its own copy
      JFT_RETURN_IF_ERROR(added);
    } else {
      const CudaKernelNodeParams params = nodeParams(launch);
      JFT_RETURN_IF_ERROR(driver
                              .check(api.graphAddKernelNode(&node, graph.graph, after,
                                                            after ? 1 : 0, &params),
                                     "cuGraphAddKernelNode")
                              .withContext("kernel '" + kernelName(launch) + "'"));
    }
    graph.nodes.push_back(node);
  }
  return driver.check(api.graphInstantiate(&graph.exec, graph.graph, 0),
                      "cuGraphInstantiateWithFlags");
}

}  // namespace

CUstream CudaDevice::stream() const {
  return t_capturing == this ? t_capture_stream : stream_;
}

StatusOr<CUgraph> CudaDevice::captureLibraryCall(const GraphLaunch& item) {
  std::lock_guard<std::mutex> lock(capture_mutex_);
  const Driver::Graphs& api = driver_.graphs;
  if (capture_stream_ == nullptr)
    JFT_RETURN_IF_ERROR(driver_.check(
        driver_.streamCreate(&capture_stream_, kStreamNonBlocking), "cuStreamCreate"));
  JFT_RETURN_IF_ERROR(driver_.check(
      api.streamBeginCapture(capture_stream_, kStreamCaptureModeThreadLocal),
      "cuStreamBeginCapture"));
  t_capturing = this;
  t_capture_stream = capture_stream_;
  Status enqueued = item.enqueue();
  t_capturing = nullptr;
  t_capture_stream = nullptr;
  CUgraph graph = nullptr;
  Status ended =
      driver_.check(api.streamEndCapture(capture_stream_, &graph), "cuStreamEndCapture");
  if (enqueued.isOk() && ended.isOk()) return graph;
  if (graph != nullptr) api.graphDestroy(graph);
  return enqueued.isOk() ? ended : enqueued;
}

StatusOr<GraphHandle> CudaDevice::createLaunchGraph(
    std::span<const GraphLaunch> launches) {
  if (graphs_from_ == 0) return Device::createLaunchGraph(launches);
  JFT_RETURN_IF_ERROR(makeCurrent());
  auto* graph = new CudaGraph();
  Status built = build(
      driver_, launches,
      [this](const GraphLaunch& item) { return captureLibraryCall(item); }, *graph);
  if (!built.isOk()) {
    release(driver_, graph);
    return built;
  }
  return static_cast<GraphHandle>(graph);
}

Status CudaDevice::updateGraphLaunch(GraphHandle handle, size_t index,
                                     const GraphLaunch& launch) {
  auto* graph = static_cast<CudaGraph*>(handle);
  if (graph == nullptr || index >= graph->nodes.size())
    return invalidArgument("no launch " + std::to_string(index) + " in this graph");
  JFT_RETURN_IF_ERROR(makeCurrent());
  const Driver::Graphs& api = driver_.graphs;
  if (launch.enqueue) {
    JFT_ASSIGN_OR_RETURN(CUgraph child, captureLibraryCall(launch));
    Status set = driver_.check(
        api.graphExecChildGraphNodeSetParams(graph->exec, graph->nodes[index], child),
        "cuGraphExecChildGraphNodeSetParams");
    api.graphDestroy(child);
    return set;
  }
  const CudaKernelNodeParams params = nodeParams(launch);
  return driver_
      .check(api.graphExecKernelNodeSetParams(graph->exec, graph->nodes[index], &params),
             "cuGraphExecKernelNodeSetParams")
      .withContext("kernel '" + kernelName(launch) + "'");
}

Status CudaDevice::launchGraph(GraphHandle handle) {
  auto* graph = static_cast<CudaGraph*>(handle);
  if (graph == nullptr) return invalidArgument("no graph to launch");
  JFT_RETURN_IF_ERROR(makeCurrent());
  return driver_.check(driver_.graphs.graphLaunch(graph->exec, stream_), "cuGraphLaunch");
}

void CudaDevice::destroyGraph(GraphHandle handle) {
  auto* graph = static_cast<CudaGraph*>(handle);
  if (graph == nullptr || !makeCurrent().isOk()) return;
  releaseAfterQueuedWork([this, graph] { release(driver_, graph); });
}

}  // namespace jft::runtime::gpu
