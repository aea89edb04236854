// Our own declarations of the CUPTI Activity API subset the device tracer
// uses, in the manner of driver_api.h: the plugin builds without CUPTI's
// headers and opens libcupti with dlopen. Values and record layouts as
// cupti_activity.h / cupti_result.h state them for CUDA 12 and 13.
//
// Activity records are packed, 8-byte aligned structs whose later versions
// only append fields; we read the common prefix of each kind we enable and
// check the record's `kind` before reading it:
//   CONCURRENT_KERNEL: CUpti_ActivityKernel9 (CUDA 12), CUpti_ActivityKernel10
//     (13.0) and CUpti_ActivityKernel11 (13.2) share every field through
//     `name` at byte 104;
//   MEMCPY: CUpti_ActivityMemcpy5 / 6 / 7 share the prefix through
//     `correlationId` at byte 44;
//   MEMSET: CUpti_ActivityMemset4 through `memoryKind` at byte 50;
//   EXTERNAL_CORRELATION: CUpti_ActivityExternalCorrelation (24 bytes).
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/gpu/driver_api.h"

namespace jft::runtime::gpu {

using CUptiResult = int;         // an enum in cupti_result.h
using CUpti_ActivityKind = int;  // an enum in cupti_activity.h
using CUpti_ExternalCorrelationKind = int;

inline constexpr CUptiResult kCuptiSuccess = 0;
// cuptiActivityGetNextRecord's answer when the buffer holds no more records.
inline constexpr CUptiResult kCuptiErrorMaxLimitReached = 12;

inline constexpr CUpti_ActivityKind kCuptiActivityKindMemcpy = 1;
inline constexpr CUpti_ActivityKind kCuptiActivityKindDriver = 4;
inline constexpr CUpti_ActivityKind kCuptiActivityKindMemset = 2;
inline constexpr CUpti_ActivityKind kCuptiActivityKindConcurrentKernel = 10;
inline constexpr CUpti_ActivityKind kCuptiActivityKindExternalCorrelation = 39;

// CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1: a kind reserved for tools; we
// leave CUSTOM0 to others.
inline constexpr CUpti_ExternalCorrelationKind kCuptiExternalCorrelationCustom1 = 4;
// CUPTI_ACTIVITY_FLAG_FLUSH_FORCED: flush records not yet complete too.
inline constexpr uint32_t kCuptiActivityFlagFlushForced = 1;
// CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC / CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC.
inline constexpr uint32_t kCuptiActivityFlagAsync = 1;

// CUpti_Activity: every record begins with its kind.
struct CUpti_Activity {
  CUpti_ActivityKind kind;
};

// The prefix of CUpti_ActivityKernel9/10/11 we read.
struct CUpti_ActivityKernel9 {
  CUpti_ActivityKind kind;
  uint8_t cacheConfig;
  uint8_t sharedMemoryConfig;
  uint16_t registersPerThread;
  int32_t partitionedGlobalCacheRequested;
  int32_t partitionedGlobalCacheExecuted;
  uint64_t start;
  uint64_t end;
  uint64_t completed;
  uint32_t deviceId;
  uint32_t contextId;
  uint32_t streamId;
  int32_t gridX, gridY, gridZ;
  int32_t blockX, blockY, blockZ;
  int32_t staticSharedMemory;
  int32_t dynamicSharedMemory;
  uint32_t localMemoryPerThread;
  uint32_t localMemoryTotal;
  uint32_t correlationId;
  int64_t gridId;
  const char* name;
};
static_assert(offsetof(CUpti_ActivityKernel9, registersPerThread) == 6);
static_assert(offsetof(CUpti_ActivityKernel9, start) == 16);
static_assert(offsetof(CUpti_ActivityKernel9, deviceId) == 40);
static_assert(offsetof(CUpti_ActivityKernel9, streamId) == 48);
static_assert(offsetof(CUpti_ActivityKernel9, gridX) == 52);
static_assert(offsetof(CUpti_ActivityKernel9, blockX) == 64);
static_assert(offsetof(CUpti_ActivityKernel9, staticSharedMemory) == 76);
static_assert(offsetof(CUpti_ActivityKernel9, correlationId) == 92);
static_assert(offsetof(CUpti_ActivityKernel9, gridId) == 96);
static_assert(offsetof(CUpti_ActivityKernel9, name) == 104);

// The prefix of CUpti_ActivityMemcpy5/6/7 we read.
struct CUpti_ActivityMemcpy5 {
  CUpti_ActivityKind kind;
  uint8_t copyKind;  // CUpti_ActivityMemcpyKind
  uint8_t srcKind;   // CUpti_ActivityMemoryKind
  uint8_t dstKind;
  uint8_t flags;
  uint64_t bytes;
  uint64_t start;
  uint64_t end;
  uint32_t deviceId;
  uint32_t contextId;
  uint32_t streamId;
  uint32_t correlationId;
};
static_assert(offsetof(CUpti_ActivityMemcpy5, bytes) == 8);
static_assert(offsetof(CUpti_ActivityMemcpy5, start) == 16);
static_assert(offsetof(CUpti_ActivityMemcpy5, deviceId) == 32);
static_assert(offsetof(CUpti_ActivityMemcpy5, correlationId) == 44);

// The prefix of CUpti_ActivityMemset4 we read.
struct CUpti_ActivityMemset4 {
  CUpti_ActivityKind kind;
  uint32_t value;
  uint64_t bytes;
  uint64_t start;
  uint64_t end;
  uint32_t deviceId;
  uint32_t contextId;
  uint32_t streamId;
  uint32_t correlationId;
  uint16_t flags;
  uint16_t memoryKind;
};
static_assert(offsetof(CUpti_ActivityMemset4, start) == 16);
static_assert(offsetof(CUpti_ActivityMemset4, streamId) == 40);
static_assert(offsetof(CUpti_ActivityMemset4, flags) == 48);
static_assert(offsetof(CUpti_ActivityMemset4, memoryKind) == 50);

struct CUpti_ActivityExternalCorrelation {
  CUpti_ActivityKind kind;
  CUpti_ExternalCorrelationKind externalKind;
  uint64_t externalId;
  uint32_t correlationId;
  uint32_t reserved;
};
static_assert(sizeof(CUpti_ActivityExternalCorrelation) == 24);
static_assert(offsetof(CUpti_ActivityExternalCorrelation, correlationId) == 16);

using CUpti_BuffersCallbackRequestFunc = void (*)(uint8_t** buffer, size_t* size,
                                                  size_t* maxNumRecords);
using CUpti_BuffersCallbackCompleteFunc = void (*)(CUcontext context, uint32_t streamId,
                                                   uint8_t* buffer, size_t size,
                                                   size_t validSize);

// The entry points, in the order they are resolved. X(name, symbol, signature).
#define JFT_CUPTI_FUNCTIONS(X)                                                           \
  X(getVersion, "cuptiGetVersion", CUptiResult (*)(uint32_t*))                           \
  X(getResultString, "cuptiGetResultString", CUptiResult (*)(CUptiResult, const char**)) \
  X(getTimestamp, "cuptiGetTimestamp", CUptiResult (*)(uint64_t*))                       \
  X(activityRegisterCallbacks, "cuptiActivityRegisterCallbacks",                         \
    CUptiResult (*)(CUpti_BuffersCallbackRequestFunc,                                    \
                    CUpti_BuffersCallbackCompleteFunc))                                  \
  X(activityEnable, "cuptiActivityEnable", CUptiResult (*)(CUpti_ActivityKind))          \
  X(activityDisable, "cuptiActivityDisable", CUptiResult (*)(CUpti_ActivityKind))        \
  X(activityFlushAll, "cuptiActivityFlushAll", CUptiResult (*)(uint32_t))                \
  X(activityGetNextRecord, "cuptiActivityGetNextRecord",                                 \
    CUptiResult (*)(uint8_t*, size_t, CUpti_Activity**))                                 \
  X(activityPushExternalCorrelationId, "cuptiActivityPushExternalCorrelationId",         \
    CUptiResult (*)(CUpti_ExternalCorrelationKind, uint64_t))                            \
  X(activityPopExternalCorrelationId, "cuptiActivityPopExternalCorrelationId",           \
    CUptiResult (*)(CUpti_ExternalCorrelationKind, uint64_t*))

}  // namespace jft::runtime::gpu
