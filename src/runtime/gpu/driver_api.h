// Our own minimal declarations of the CUDA driver API entry points we call.
//
// The plugin must build where no CUDA toolkit is installed (CI), so we never
// include cuda.h; libcuda.so.1 is opened at run time and each entry point is
// looked up by its exported (versioned) symbol name. Values of the enums below
// are ABI of the driver and are checked against cuda.h by a test wherever the
// toolkit is present.
#pragma once

#include <cstddef>

namespace jft::runtime::gpu {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
struct CUctx_st;
using CUcontext = CUctx_st*;
struct CUstream_st;
using CUstream = CUstream_st*;
struct CUevent_st;
using CUevent = CUevent_st*;
struct CUmod_st;
using CUmodule = CUmod_st*;
struct CUfunc_st;
using CUfunction = CUfunc_st*;
struct CUmemPoolHandle_st;
using CUmemoryPool = CUmemPoolHandle_st*;
struct CUgraph_st;
using CUgraph = CUgraph_st*;
struct CUgraphNode_st;
using CUgraphNode = CUgraphNode_st*;
struct CUgraphExec_st;
using CUgraphExec = CUgraphExec_st*;
struct CUkern_st;
using CUkernel = CUkern_st*;

// CUDA_KERNEL_NODE_PARAMS_v2: one kernel launch of a graph (the driver copies
// the values `kernelParams` points at when the node is made or updated).
struct CudaKernelNodeParams {
  CUfunction func = nullptr;
  unsigned gridDimX = 1, gridDimY = 1, gridDimZ = 1;
  unsigned blockDimX = 1, blockDimY = 1, blockDimZ = 1;
  unsigned sharedMemBytes = 0;
  void** kernelParams = nullptr;
  void** extra = nullptr;
  CUkernel kern = nullptr;  // null: `func` names the kernel
  CUcontext ctx = nullptr;  // null: the current context
};

// A host function run in stream order (cuLaunchHostFunc); it must not call CUDA.
using CUhostFn = void (*)(void* userData);

inline constexpr CUresult kCudaSuccess = 0;
inline constexpr CUresult kCudaErrorOutOfMemory = 2;
inline constexpr CUresult kCudaErrorNotInitialized = 3;
inline constexpr CUresult kCudaErrorNoDevice = 100;
inline constexpr CUresult kCudaErrorNotReady = 600;

inline constexpr int kAttrWarpSize = 10;
inline constexpr int kAttrClockRate = 13;
inline constexpr int kAttrMultiprocessorCount = 16;
inline constexpr int kAttrPciBusId = 33;
inline constexpr int kAttrPciDeviceId = 34;
inline constexpr int kAttrPciDomainId = 50;
inline constexpr int kAttrComputeCapabilityMajor = 75;
inline constexpr int kAttrComputeCapabilityMinor = 76;
inline constexpr int kAttrMaxSharedMemoryPerBlockOptin = 97;
inline constexpr int kAttrMemoryPoolsSupported = 115;

// CUfunction_attribute: dynamic shared memory a launch may ask for.
inline constexpr int kFuncAttrMaxDynamicSharedSizeBytes = 8;
// CUmemPool_attribute: bytes a pool keeps cached instead of returning them.
inline constexpr int kMemPoolAttrReleaseThreshold = 4;
// Bytes of physical memory the pool holds from the driver, now and at most.
inline constexpr int kMemPoolAttrReservedMemCurrent = 5;
inline constexpr int kMemPoolAttrReservedMemHigh = 6;

inline constexpr unsigned kStreamNonBlocking = 0x1;
// CUstreamCaptureMode: only the capturing thread's unsafe calls are refused.
inline constexpr int kStreamCaptureModeThreadLocal = 1;
inline constexpr unsigned kHostAllocPortable = 0x1;
inline constexpr unsigned kEventBlockingSync = 0x1;
inline constexpr unsigned kEventDisableTiming = 0x2;

// The entry points, in the order they are resolved. X(name, symbol, signature).
#define JFT_CUDA_DRIVER_FUNCTIONS(X)                                                     \
  X(init, "cuInit", CUresult (*)(unsigned))                                              \
  X(driverGetVersion, "cuDriverGetVersion", CUresult (*)(int*))                          \
  X(getErrorName, "cuGetErrorName", CUresult (*)(CUresult, const char**))                \
  X(getErrorString, "cuGetErrorString", CUresult (*)(CUresult, const char**))            \
  X(deviceGetCount, "cuDeviceGetCount", CUresult (*)(int*))                              \
  X(deviceGet, "cuDeviceGet", CUresult (*)(CUdevice*, int))                              \
  X(deviceGetName, "cuDeviceGetName", CUresult (*)(char*, int, CUdevice))                \
  X(deviceGetAttribute, "cuDeviceGetAttribute", CUresult (*)(int*, int, CUdevice))       \
  X(deviceTotalMem, "cuDeviceTotalMem_v2", CUresult (*)(size_t*, CUdevice))              \
  X(primaryCtxRetain, "cuDevicePrimaryCtxRetain", CUresult (*)(CUcontext*, CUdevice))    \
  X(primaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", CUresult (*)(CUdevice))           \
  X(ctxSetCurrent, "cuCtxSetCurrent", CUresult (*)(CUcontext))                           \
  X(streamCreate, "cuStreamCreate", CUresult (*)(CUstream*, unsigned))                   \
  X(streamDestroy, "cuStreamDestroy_v2", CUresult (*)(CUstream))                         \
  X(streamQuery, "cuStreamQuery", CUresult (*)(CUstream))                                \
  X(streamSynchronize, "cuStreamSynchronize", CUresult (*)(CUstream))                    \
  X(eventCreate, "cuEventCreate", CUresult (*)(CUevent*, unsigned))                      \
  X(eventRecord, "cuEventRecord", CUresult (*)(CUevent, CUstream))                       \
  X(eventSynchronize, "cuEventSynchronize", CUresult (*)(CUevent))                       \
  X(streamWaitEvent, "cuStreamWaitEvent", CUresult (*)(CUstream, CUevent, unsigned))     \
  X(eventDestroy, "cuEventDestroy_v2", CUresult (*)(CUevent))                            \
  X(memAlloc, "cuMemAlloc_v2", CUresult (*)(CUdeviceptr*, size_t))                       \
  X(memFree, "cuMemFree_v2", CUresult (*)(CUdeviceptr))                                  \
  X(memGetInfo, "cuMemGetInfo_v2", CUresult (*)(size_t*, size_t*))                       \
  X(memcpyHtoDAsync, "cuMemcpyHtoDAsync_v2",                                             \
    CUresult (*)(CUdeviceptr, const void*, size_t, CUstream))                            \
  X(memcpyDtoHAsync, "cuMemcpyDtoHAsync_v2",                                             \
    CUresult (*)(void*, CUdeviceptr, size_t, CUstream))                                  \
  X(memcpyDtoDAsync, "cuMemcpyDtoDAsync_v2",                                             \
    CUresult (*)(CUdeviceptr, CUdeviceptr, size_t, CUstream))                            \
  X(memcpyPeerAsync, "cuMemcpyPeerAsync",                                                \
    CUresult (*)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t, CUstream))      \
  X(memHostAlloc, "cuMemHostAlloc", CUresult (*)(void**, size_t, unsigned))              \
  X(memFreeHost, "cuMemFreeHost", CUresult (*)(void*))                                   \
  X(memsetD8Async, "cuMemsetD8Async",                                                    \
    CUresult (*)(CUdeviceptr, unsigned char, size_t, CUstream))                          \
  X(moduleLoadData, "cuModuleLoadData", CUresult (*)(CUmodule*, const void*))            \
  X(moduleUnload, "cuModuleUnload", CUresult (*)(CUmodule))                              \
  X(moduleGetFunction, "cuModuleGetFunction",                                            \
    CUresult (*)(CUfunction*, CUmodule, const char*))                                    \
  X(funcSetAttribute, "cuFuncSetAttribute", CUresult (*)(CUfunction, int, int))          \
  X(launchKernel, "cuLaunchKernel",                                                      \
    CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, \
                 unsigned, CUstream, void**, void**))                                    \
  X(deviceGetDefaultMemPool, "cuDeviceGetDefaultMemPool",                                \
    CUresult (*)(CUmemoryPool*, CUdevice))                                               \
  X(memPoolSetAttribute, "cuMemPoolSetAttribute",                                        \
    CUresult (*)(CUmemoryPool, int, void*))                                              \
  X(memPoolGetAttribute, "cuMemPoolGetAttribute",                                        \
    CUresult (*)(CUmemoryPool, int, void*))                                              \
  X(memPoolTrimTo, "cuMemPoolTrimTo", CUresult (*)(CUmemoryPool, size_t))                \
  X(memAllocFromPoolAsync, "cuMemAllocFromPoolAsync",                                    \
    CUresult (*)(CUdeviceptr*, size_t, CUmemoryPool, CUstream))                          \
  X(memFreeAsync, "cuMemFreeAsync", CUresult (*)(CUdeviceptr, CUstream))                 \
  X(launchHostFunc, "cuLaunchHostFunc", CUresult (*)(CUstream, CUhostFn, void*))

// Launch graphs (runtime/gpu/cuda_graphs.cc), resolved apart: a driver
// without them runs every launch one by one.
#define JFT_CUDA_GRAPH_FUNCTIONS(X)                                             \
  X(graphCreate, "cuGraphCreate", CUresult (*)(CUgraph*, unsigned))             \
  X(graphAddKernelNode, "cuGraphAddKernelNode_v2",                              \
    CUresult (*)(CUgraphNode*, CUgraph, const CUgraphNode*, size_t,             \
                 const CudaKernelNodeParams*))                                  \
  X(graphInstantiate, "cuGraphInstantiateWithFlags",                            \
    CUresult (*)(CUgraphExec*, CUgraph, unsigned long long))                    \
  X(graphExecKernelNodeSetParams, "cuGraphExecKernelNodeSetParams_v2",          \
    CUresult (*)(CUgraphExec, CUgraphNode, const CudaKernelNodeParams*))        \
  X(graphLaunch, "cuGraphLaunch", CUresult (*)(CUgraphExec, CUstream))          \
  X(graphExecDestroy, "cuGraphExecDestroy", CUresult (*)(CUgraphExec))          \
  X(graphDestroy, "cuGraphDestroy", CUresult (*)(CUgraph))                      \
  X(streamBeginCapture, "cuStreamBeginCapture_v2", CUresult (*)(CUstream, int)) \
  X(streamEndCapture, "cuStreamEndCapture", CUresult (*)(CUstream, CUgraph*))   \
  X(graphAddChildGraphNode, "cuGraphAddChildGraphNode",                         \
    CUresult (*)(CUgraphNode*, CUgraph, const CUgraphNode*, size_t, CUgraph))   \
  X(graphExecChildGraphNodeSetParams, "cuGraphExecChildGraphNodeSetParams",     \
    CUresult (*)(CUgraphExec, CUgraphNode, CUgraph))

}  // namespace jft::runtime::gpu
