// CudaDevice: launch graphs as CUDA graphs of kernel nodes, each node after
// the one before (the order a stream would give them), instantiated once and
// replayed on the device's stream. A node's parameter values are copied by
// the driver when the node is made or updated, as cuLaunchKernel copies them.
#include <memory>
#include <string>
#include <vector>

#include "runtime/gpu/cuda_device.h"
#include "runtime/gpu/cuda_kernel.h"

namespace jft::runtime::gpu {
namespace {

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
  return static_cast<const CudaKernel*>(launch.kernel)->name;
}

void release(const Driver& driver, CudaGraph* graph) {
  if (graph->exec != nullptr) driver.graphs.graphExecDestroy(graph->exec);
  if (graph->graph != nullptr) driver.graphs.graphDestroy(graph->graph);
  delete graph;
}

Status build(const Driver& driver, std::span<const GraphLaunch> launches,
             CudaGraph& graph) {
  const Driver::Graphs& api = driver.graphs;
  JFT_RETURN_IF_ERROR(driver.check(api.graphCreate(&graph.graph, 0), "cuGraphCreate"));
  for (const GraphLaunch& launch : launches) {
    const CudaKernelNodeParams params = nodeParams(launch);
    const CUgraphNode* after = graph.nodes.empty() ? nullptr : &graph.nodes.back();
    CUgraphNode node = nullptr;
    JFT_RETURN_IF_ERROR(driver
                            .check(api.graphAddKernelNode(&node, graph.graph, after,
                                                          after ? 1 : 0, &params),
                                   "cuGraphAddKernelNode")
                            .withContext("kernel '" + kernelName(launch) + "'"));
    graph.nodes.push_back(node);
  }
  return driver.check(api.graphInstantiate(&graph.exec, graph.graph, 0),
                      "cuGraphInstantiateWithFlags");
}

}  // namespace

StatusOr<GraphHandle> CudaDevice::createLaunchGraph(
    std::span<const GraphLaunch> launches) {
  if (graphs_from_ == 0) return Device::createLaunchGraph(launches);
  JFT_RETURN_IF_ERROR(makeCurrent());
  auto* graph = new CudaGraph();
  Status built = build(driver_, launches, *graph);
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
  const CudaKernelNodeParams params = nodeParams(launch);
  return driver_
      .check(driver_.graphs.graphExecKernelNodeSetParams(graph->exec, graph->nodes[index],
                                                         &params),
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
