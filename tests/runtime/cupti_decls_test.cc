// Our CUPTI declarations (runtime/gpu/cupti_api.h) against the installed
// cupti.h (built only where the header exists): every value we use, every
// field of the record prefixes we read at the offset of the newest record
// version and of CUDA 12's, and the shape of every entry point.
#include <cupti.h>
#include <gtest/gtest.h>

#include <cstddef>

#include "runtime/gpu/cupti_api.h"

namespace jft::runtime::gpu {
namespace {

static_assert(kCuptiSuccess == ::CUPTI_SUCCESS);
static_assert(kCuptiErrorMaxLimitReached == ::CUPTI_ERROR_MAX_LIMIT_REACHED);
static_assert(kCuptiActivityKindMemcpy == ::CUPTI_ACTIVITY_KIND_MEMCPY);
static_assert(kCuptiActivityKindMemset == ::CUPTI_ACTIVITY_KIND_MEMSET);
static_assert(kCuptiActivityKindDriver == ::CUPTI_ACTIVITY_KIND_DRIVER);
static_assert(kCuptiActivityKindConcurrentKernel ==
              ::CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
static_assert(kCuptiActivityKindExternalCorrelation ==
              ::CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
static_assert(kCuptiExternalCorrelationCustom1 ==
              ::CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1);
static_assert(kCuptiActivityFlagFlushForced == ::CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
static_assert(kCuptiActivityFlagAsync == ::CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC);
static_assert(kCuptiActivityFlagAsync == ::CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC);
static_assert(::CUPTI_ACTIVITY_MEMCPY_KIND_HTOD == 1 &&
              ::CUPTI_ACTIVITY_MEMCPY_KIND_DTOH == 2 &&
              ::CUPTI_ACTIVITY_MEMCPY_KIND_DTOD == 8 &&
              ::CUPTI_ACTIVITY_MEMCPY_KIND_PTOP == 10);
static_assert(::CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE == 1 &&
              ::CUPTI_ACTIVITY_MEMORY_KIND_PINNED == 2 &&
              ::CUPTI_ACTIVITY_MEMORY_KIND_DEVICE == 3 &&
              ::CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC == 7);

#define JFT_SAME_FIELD(Ours, Theirs, field) \
  static_assert(offsetof(Ours, field) == offsetof(Theirs, field), #Theirs "::" #field)
#define JFT_KERNEL_FIELDS(Theirs)                                     \
  JFT_SAME_FIELD(CUpti_ActivityKernel9, Theirs, registersPerThread);  \
  JFT_SAME_FIELD(CUpti_ActivityKernel9, Theirs, start);               \
  JFT_SAME_FIELD(CUpti_ActivityKernel9, Theirs, end);                 \
  JFT_SAME_FIELD(CUpti_ActivityKernel9, Theirs, deviceId);            \
  JFT_SAME_FIELD(CUpti_ActivityKernel9, Theirs, streamId);            \
  JFT_SAME_FIELD(CUpti_ActivityKernel9, Theirs, gridX);               \
  JFT_SAME_FIELD(CUpti_ActivityKernel9, Theirs, gridZ);               \
  JFT_SAME_FIELD(CUpti_ActivityKernel9, Theirs, blockX);              \
  JFT_SAME_FIELD(CUpti_ActivityKernel9, Theirs, blockZ);              \
  JFT_SAME_FIELD(CUpti_ActivityKernel9, Theirs, staticSharedMemory);  \
  JFT_SAME_FIELD(CUpti_ActivityKernel9, Theirs, dynamicSharedMemory); \
  JFT_SAME_FIELD(CUpti_ActivityKernel9, Theirs, correlationId);       \
  JFT_SAME_FIELD(CUpti_ActivityKernel9, Theirs, name);                \
  static_assert(sizeof(CUpti_ActivityKernel9) <= sizeof(Theirs))
JFT_KERNEL_FIELDS(::CUpti_ActivityKernel9);
#if defined(CUPTI_API_VERSION) && CUPTI_API_VERSION >= 130000
JFT_KERNEL_FIELDS(::CUpti_ActivityKernel10);
#endif

#define JFT_MEMCPY_FIELDS(Theirs)                               \
  JFT_SAME_FIELD(CUpti_ActivityMemcpy5, Theirs, copyKind);      \
  JFT_SAME_FIELD(CUpti_ActivityMemcpy5, Theirs, srcKind);       \
  JFT_SAME_FIELD(CUpti_ActivityMemcpy5, Theirs, dstKind);       \
  JFT_SAME_FIELD(CUpti_ActivityMemcpy5, Theirs, flags);         \
  JFT_SAME_FIELD(CUpti_ActivityMemcpy5, Theirs, bytes);         \
  JFT_SAME_FIELD(CUpti_ActivityMemcpy5, Theirs, start);         \
  JFT_SAME_FIELD(CUpti_ActivityMemcpy5, Theirs, end);           \
  JFT_SAME_FIELD(CUpti_ActivityMemcpy5, Theirs, deviceId);      \
  JFT_SAME_FIELD(CUpti_ActivityMemcpy5, Theirs, streamId);      \
  JFT_SAME_FIELD(CUpti_ActivityMemcpy5, Theirs, correlationId); \
  static_assert(sizeof(CUpti_ActivityMemcpy5) <= sizeof(Theirs))
JFT_MEMCPY_FIELDS(::CUpti_ActivityMemcpy5);
#if defined(CUPTI_API_VERSION) && CUPTI_API_VERSION >= 130000
JFT_MEMCPY_FIELDS(::CUpti_ActivityMemcpy6);
#endif

JFT_SAME_FIELD(CUpti_ActivityMemset4, ::CUpti_ActivityMemset4, value);
JFT_SAME_FIELD(CUpti_ActivityMemset4, ::CUpti_ActivityMemset4, bytes);
JFT_SAME_FIELD(CUpti_ActivityMemset4, ::CUpti_ActivityMemset4, start);
JFT_SAME_FIELD(CUpti_ActivityMemset4, ::CUpti_ActivityMemset4, deviceId);
JFT_SAME_FIELD(CUpti_ActivityMemset4, ::CUpti_ActivityMemset4, streamId);
JFT_SAME_FIELD(CUpti_ActivityMemset4, ::CUpti_ActivityMemset4, correlationId);
JFT_SAME_FIELD(CUpti_ActivityMemset4, ::CUpti_ActivityMemset4, flags);
JFT_SAME_FIELD(CUpti_ActivityMemset4, ::CUpti_ActivityMemset4, memoryKind);

JFT_SAME_FIELD(CUpti_ActivityExternalCorrelation, ::CUpti_ActivityExternalCorrelation,
               externalKind);
JFT_SAME_FIELD(CUpti_ActivityExternalCorrelation, ::CUpti_ActivityExternalCorrelation,
               externalId);
JFT_SAME_FIELD(CUpti_ActivityExternalCorrelation, ::CUpti_ActivityExternalCorrelation,
               correlationId);
static_assert(sizeof(CUpti_ActivityExternalCorrelation) ==
              sizeof(::CUpti_ActivityExternalCorrelation));
#undef JFT_SAME_FIELD

template <typename R1, typename... A1, typename R2, typename... A2>
constexpr bool sameShape(R1 (*)(A1...), R2 (*)(A2...)) {
  if constexpr (sizeof...(A1) != sizeof...(A2)) {
    return false;
  } else {
    return sizeof(R1) == sizeof(R2) && ((sizeof(A1) == sizeof(A2)) && ...);
  }
}

TEST(CuptiDecls, EntryPointsHaveTheHeadersShape) {
  static_assert(
      sameShape(static_cast<CUptiResult (*)(uint32_t*)>(nullptr), &::cuptiGetVersion));
  static_assert(
      sameShape(static_cast<CUptiResult (*)(CUptiResult, const char**)>(nullptr),
                &::cuptiGetResultString));
  static_assert(
      sameShape(static_cast<CUptiResult (*)(uint64_t*)>(nullptr), &::cuptiGetTimestamp));
  static_assert(
      sameShape(static_cast<CUptiResult (*)(CUpti_BuffersCallbackRequestFunc,
                                            CUpti_BuffersCallbackCompleteFunc)>(nullptr),
                &::cuptiActivityRegisterCallbacks));
  static_assert(sameShape(static_cast<CUptiResult (*)(CUpti_ActivityKind)>(nullptr),
                          &::cuptiActivityEnable));
  static_assert(sameShape(static_cast<CUptiResult (*)(CUpti_ActivityKind)>(nullptr),
                          &::cuptiActivityDisable));
  static_assert(sameShape(static_cast<CUptiResult (*)(uint32_t)>(nullptr),
                          &::cuptiActivityFlushAll));
  static_assert(
      sameShape(static_cast<CUptiResult (*)(uint8_t*, size_t, CUpti_Activity**)>(nullptr),
                &::cuptiActivityGetNextRecord));
  static_assert(sameShape(
      static_cast<CUptiResult (*)(CUpti_ExternalCorrelationKind, uint64_t)>(nullptr),
      &::cuptiActivityPushExternalCorrelationId));
  static_assert(sameShape(
      static_cast<CUptiResult (*)(CUpti_ExternalCorrelationKind, uint64_t*)>(nullptr),
      &::cuptiActivityPopExternalCorrelationId));
  SUCCEED();
}

}  // namespace
}  // namespace jft::runtime::gpu

#undef JFT_KERNEL_FIELDS
#undef JFT_MEMCPY_FIELDS
