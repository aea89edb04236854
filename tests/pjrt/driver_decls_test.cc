// Our CUDA driver declarations against the toolkit's cuda.h (built only where
// the header exists): enum values and the exported symbol names must agree.
#include <cuda.h>
#include <gtest/gtest.h>

#include "runtime/gpu/driver_api.h"

namespace jft::runtime::gpu {
namespace {

static_assert(kCudaSuccess == CUDA_SUCCESS);
static_assert(kCudaErrorOutOfMemory == CUDA_ERROR_OUT_OF_MEMORY);
static_assert(kCudaErrorNotInitialized == CUDA_ERROR_NOT_INITIALIZED);
static_assert(kCudaErrorNoDevice == CUDA_ERROR_NO_DEVICE);
static_assert(kCudaErrorNotReady == CUDA_ERROR_NOT_READY);
static_assert(kAttrClockRate == CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
static_assert(kAttrMultiprocessorCount == CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
static_assert(kAttrPciBusId == CU_DEVICE_ATTRIBUTE_PCI_BUS_ID);
static_assert(kAttrPciDeviceId == CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID);
static_assert(kAttrPciDomainId == CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID);
static_assert(kAttrComputeCapabilityMajor ==
              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
static_assert(kAttrComputeCapabilityMinor ==
              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
static_assert(kStreamNonBlocking == CU_STREAM_NON_BLOCKING);
static_assert(kEventBlockingSync == CU_EVENT_BLOCKING_SYNC);
static_assert(kEventDisableTiming == CU_EVENT_DISABLE_TIMING);
static_assert(kHostAllocPortable == CU_MEMHOSTALLOC_PORTABLE);
static_assert(sizeof(CUdeviceptr) == sizeof(::CUdeviceptr));

#define JFT_STRINGIFY_INNER(x) #x
#define JFT_STRINGIFY(x) JFT_STRINGIFY_INNER(x)

// cuda.h maps each API name to its current versioned symbol with a macro; the
// symbol we look up must be that one.
TEST(CudaDriverDecls, SymbolNamesAreTheCurrentVersions) {
  EXPECT_STREQ(JFT_STRINGIFY(cuMemAlloc), "cuMemAlloc_v2");
  EXPECT_STREQ(JFT_STRINGIFY(cuMemFree), "cuMemFree_v2");
  EXPECT_STREQ(JFT_STRINGIFY(cuMemGetInfo), "cuMemGetInfo_v2");
  EXPECT_STREQ(JFT_STRINGIFY(cuDeviceTotalMem), "cuDeviceTotalMem_v2");
  EXPECT_STREQ(JFT_STRINGIFY(cuMemcpyHtoDAsync), "cuMemcpyHtoDAsync_v2");
  EXPECT_STREQ(JFT_STRINGIFY(cuMemcpyDtoHAsync), "cuMemcpyDtoHAsync_v2");
  EXPECT_STREQ(JFT_STRINGIFY(cuMemcpyDtoDAsync), "cuMemcpyDtoDAsync_v2");
  EXPECT_STREQ(JFT_STRINGIFY(cuStreamDestroy), "cuStreamDestroy_v2");
  EXPECT_STREQ(JFT_STRINGIFY(cuEventDestroy), "cuEventDestroy_v2");
  EXPECT_STREQ(JFT_STRINGIFY(cuDevicePrimaryCtxRelease), "cuDevicePrimaryCtxRelease_v2");
  EXPECT_STREQ(JFT_STRINGIFY(cuMemHostAlloc), "cuMemHostAlloc");
  EXPECT_STREQ(JFT_STRINGIFY(cuMemFreeHost), "cuMemFreeHost");
}

}  // namespace
}  // namespace jft::runtime::gpu

#undef JFT_STRINGIFY_INNER
#undef JFT_STRINGIFY
