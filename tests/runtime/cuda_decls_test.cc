// The driver declarations the executable path added (kernels, launches, fills,
// stream-ordered pool) against the toolkit's cuda.h; built only where it exists.
#include <cuda.h>
#include <gtest/gtest.h>

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
}

}  // namespace
}  // namespace jft::runtime::gpu

#undef JFT_STRINGIFY_INNER
#undef JFT_STRINGIFY
