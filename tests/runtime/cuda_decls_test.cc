// The driver declarations the executable path added (kernels, launches, fills,
// stream-ordered pool) against the toolkit's cuda.h; built only where it exists.
#include <cuda.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <type_traits>

#include "runtime/gpu/driver_api.h"

namespace jft::runtime::gpu {
namespace {

static_assert(kAttrWarpSize == CU_DEVICE_ATTRIBUTE_WARP_SIZE);
static_assert(kAttrMaxSharedMemoryPerBlockOptin ==
              CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
static_assert(kAttrMemoryPoolsSupported == CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED);
static_assert(kFuncAttrMaxDynamicSharedSizeBytes ==
              CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
static_assert(kMemPoolAttrReleaseThreshold == CU_MEMPOOL_ATTR_RELEASE_THRESHOLD);
static_assert(sizeof(::CUmodule) == sizeof(CUmodule));
static_assert(sizeof(::CUfunction) == sizeof(CUfunction));
static_assert(sizeof(::CUmemoryPool) == sizeof(CUmemoryPool));
static_assert(std::is_same_v<decltype(&::cuLaunchHostFunc),
                             ::CUresult (*)(::CUstream, ::CUhostFn, void*)>);
static_assert(std::is_same_v<::CUhostFn, void (*)(void*)>);

// The launch graphs' node description, field by field.
static_assert(sizeof(CudaKernelNodeParams) == sizeof(::CUDA_KERNEL_NODE_PARAMS_v2));
#define JFT_SAME_OFFSET(field)                           \
  static_assert(offsetof(CudaKernelNodeParams, field) == \
                offsetof(::CUDA_KERNEL_NODE_PARAMS_v2, field))
JFT_SAME_OFFSET(func);
JFT_SAME_OFFSET(gridDimX);
JFT_SAME_OFFSET(gridDimZ);
JFT_SAME_OFFSET(blockDimX);
JFT_SAME_OFFSET(blockDimZ);
JFT_SAME_OFFSET(sharedMemBytes);
JFT_SAME_OFFSET(kernelParams);
JFT_SAME_OFFSET(extra);
JFT_SAME_OFFSET(kern);
JFT_SAME_OFFSET(ctx);
#undef JFT_SAME_OFFSET
static_assert(
    std::is_same_v<decltype(&::cuGraphAddKernelNode_v2),
                   ::CUresult (*)(::CUgraphNode*, ::CUgraph, const ::CUgraphNode*, size_t,
                                  const ::CUDA_KERNEL_NODE_PARAMS_v2*)>);
static_assert(
    std::is_same_v<decltype(&::cuGraphInstantiateWithFlags),
                   ::CUresult (*)(::CUgraphExec*, ::CUgraph, unsigned long long)>);

static_assert(kStreamCaptureModeThreadLocal == CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
static_assert(std::is_same_v<decltype(&::cuGraphAddChildGraphNode),
                             ::CUresult (*)(::CUgraphNode*, ::CUgraph,
                                            const ::CUgraphNode*, size_t, ::CUgraph)>);
static_assert(std::is_same_v<decltype(&::cuGraphExecChildGraphNodeSetParams),
                             ::CUresult (*)(::CUgraphExec, ::CUgraphNode, ::CUgraph)>);
static_assert(std::is_same_v<decltype(&::cuStreamEndCapture),
                             ::CUresult (*)(::CUstream, ::CUgraph*)>);

#define JFT_STRINGIFY_INNER(x) #x
#define JFT_STRINGIFY(x) JFT_STRINGIFY_INNER(x)

// Without per-thread default streams these are the plain exported names.
TEST(CudaDriverDecls, ExecutionEntryPointsAreTheCurrentSymbols) {
  EXPECT_STREQ(JFT_STRINGIFY(cuModuleLoadData), "cuModuleLoadData");
  EXPECT_STREQ(JFT_STRINGIFY(cuModuleUnload), "cuModuleUnload");
  EXPECT_STREQ(JFT_STRINGIFY(cuModuleGetFunction), "cuModuleGetFunction");
  EXPECT_STREQ(JFT_STRINGIFY(cuFuncSetAttribute), "cuFuncSetAttribute");
  EXPECT_STREQ(JFT_STRINGIFY(cuLaunchKernel), "cuLaunchKernel");
  EXPECT_STREQ(JFT_STRINGIFY(cuMemsetD8Async), "cuMemsetD8Async");
  EXPECT_STREQ(JFT_STRINGIFY(cuDeviceGetDefaultMemPool), "cuDeviceGetDefaultMemPool");
  EXPECT_STREQ(JFT_STRINGIFY(cuMemPoolSetAttribute), "cuMemPoolSetAttribute");
  EXPECT_STREQ(JFT_STRINGIFY(cuMemPoolTrimTo), "cuMemPoolTrimTo");
  EXPECT_STREQ(JFT_STRINGIFY(cuMemAllocFromPoolAsync), "cuMemAllocFromPoolAsync");
  EXPECT_STREQ(JFT_STRINGIFY(cuMemFreeAsync), "cuMemFreeAsync");
  EXPECT_STREQ(JFT_STRINGIFY(cuLaunchHostFunc), "cuLaunchHostFunc");
  EXPECT_STREQ(JFT_STRINGIFY(cuGraphAddKernelNode), "cuGraphAddKernelNode_v2");
  EXPECT_STREQ(JFT_STRINGIFY(cuGraphExecKernelNodeSetParams),
               "cuGraphExecKernelNodeSetParams_v2");
  EXPECT_STREQ(JFT_STRINGIFY(cuGraphInstantiate), "cuGraphInstantiateWithFlags");
  EXPECT_STREQ(JFT_STRINGIFY(cuGraphLaunch), "cuGraphLaunch");
  EXPECT_STREQ(JFT_STRINGIFY(cuStreamBeginCapture), "cuStreamBeginCapture_v2");
  EXPECT_STREQ(JFT_STRINGIFY(cuStreamEndCapture), "cuStreamEndCapture");
}

}  // namespace
}  // namespace jft::runtime::gpu

#undef JFT_STRINGIFY_INNER
#undef JFT_STRINGIFY
