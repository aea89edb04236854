// Our NCCL declarations against the installed nccl.h (built only where the
// header exists): result, data type and reduction values, the unique id's
// size and the shape of every entry point; where the library is installed,
// that it exports them all and answers without a GPU.
#include <gtest/gtest.h>
#include <nccl.h>

#include <string>

#include "runtime/gpu/nccl.h"
#include "runtime/gpu/nccl_api.h"

namespace jft::runtime::gpu {
namespace {

static_assert(kNcclSuccess == ::ncclSuccess);
static_assert(kNcclUnhandledCudaError == ::ncclUnhandledCudaError);
static_assert(kNcclSystemError == ::ncclSystemError);
static_assert(kNcclInternalError == ::ncclInternalError);
static_assert(kNcclInvalidArgument == ::ncclInvalidArgument);
static_assert(kNcclInvalidUsage == ::ncclInvalidUsage);
static_assert(kNcclRemoteError == ::ncclRemoteError);
static_assert(kNcclInProgress == ::ncclInProgress);
// kNcclTimeout (8) exists only in newer headers than some we build against.

static_assert(kNcclInt8 == ::ncclInt8);
static_assert(kNcclUint8 == ::ncclUint8);
static_assert(kNcclInt32 == ::ncclInt32);
static_assert(kNcclUint32 == ::ncclUint32);
static_assert(kNcclInt64 == ::ncclInt64);
static_assert(kNcclUint64 == ::ncclUint64);
static_assert(kNcclFloat16 == ::ncclFloat16);
static_assert(kNcclFloat32 == ::ncclFloat32);
static_assert(kNcclFloat64 == ::ncclFloat64);
static_assert(kNcclBfloat16 == ::ncclBfloat16);
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 24, 0)
static_assert(kNcclFloat8e4m3 == ::ncclFloat8e4m3);
static_assert(kNcclFloat8e5m2 == ::ncclFloat8e5m2);
#endif

static_assert(kNcclSum == ::ncclSum);
static_assert(kNcclProd == ::ncclProd);
static_assert(kNcclMax == ::ncclMax);
static_assert(kNcclMin == ::ncclMin);

static_assert(sizeof(::ncclUniqueId) == sizeof(ncclUniqueId));
static_assert(kNcclUniqueIdBytes == NCCL_UNIQUE_ID_BYTES);
static_assert(sizeof(::ncclResult_t) == sizeof(ncclResult_t));
static_assert(sizeof(::ncclDataType_t) == sizeof(ncclDataType_t));
static_assert(sizeof(::ncclRedOp_t) == sizeof(ncclRedOp_t));
static_assert(sizeof(::cudaStream_t) == sizeof(CUstream));

// Each of our entry-point types must match the header's declaration in
// arity and in the size of the result and of every parameter.
template <typename R1, typename... A1, typename R2, typename... A2>
constexpr bool sameShape(R1 (*)(A1...), R2 (*)(A2...)) {
  if constexpr (sizeof...(A1) != sizeof...(A2)) {
    return false;
  } else {
    return sizeof(R1) == sizeof(R2) && ((sizeof(A1) == sizeof(A2)) && ...);
  }
}

#define JFT_DECLARE_SIGNATURE(member, symbol, signature) \
  using member##Signature = signature;
JFT_NCCL_FUNCTIONS(JFT_DECLARE_SIGNATURE)
#undef JFT_DECLARE_SIGNATURE

#define JFT_EXPECT_SHAPE(member, function)                                       \
  static_assert(sameShape(static_cast<member##Signature>(nullptr), &::function), \
                #function)
JFT_EXPECT_SHAPE(getVersion, ncclGetVersion);
JFT_EXPECT_SHAPE(getErrorString, ncclGetErrorString);
JFT_EXPECT_SHAPE(getUniqueId, ncclGetUniqueId);
JFT_EXPECT_SHAPE(commInitRank, ncclCommInitRank);
JFT_EXPECT_SHAPE(commInitAll, ncclCommInitAll);
JFT_EXPECT_SHAPE(commDestroy, ncclCommDestroy);
JFT_EXPECT_SHAPE(commAbort, ncclCommAbort);
JFT_EXPECT_SHAPE(commGetAsyncError, ncclCommGetAsyncError);
JFT_EXPECT_SHAPE(groupStart, ncclGroupStart);
JFT_EXPECT_SHAPE(groupEnd, ncclGroupEnd);
JFT_EXPECT_SHAPE(allReduce, ncclAllReduce);
JFT_EXPECT_SHAPE(allGather, ncclAllGather);
JFT_EXPECT_SHAPE(reduceScatter, ncclReduceScatter);
JFT_EXPECT_SHAPE(broadcast, ncclBroadcast);
JFT_EXPECT_SHAPE(send, ncclSend);
JFT_EXPECT_SHAPE(recv, ncclRecv);
#undef JFT_EXPECT_SHAPE
// The optional entry point, outside the required table.
static_assert(sameShape(decltype(Nccl::comm_finalize){nullptr}, &::ncclCommFinalize),
              "ncclCommFinalize");

// Loading needs no GPU: where the library is installed every entry point we
// declare must resolve, and it reports its version and error strings.
TEST(NcclDecls, LibraryExportsEveryEntryPoint) {
  StatusOr<const Nccl*> nccl = Nccl::load();
  if (!nccl.isOk()) GTEST_SKIP() << nccl.status().toString();
  int version = 0;
  EXPECT_EQ((*nccl)->getVersion(&version), ::ncclSuccess);
  EXPECT_GE(version, 21000) << (*nccl)->library_name;  // 2.10 and later
  // ncclCommFinalize came with 2.14; the loader finds it where it exists.
  if (version >= 21400) {
    EXPECT_NE((*nccl)->comm_finalize, nullptr);
  }
  const char* text = (*nccl)->getErrorString(::ncclInvalidArgument);
  ASSERT_NE(text, nullptr);
  EXPECT_NE(std::string(text), "");
  // NCCL's own words follow ours in a failed call's status.
  Status s = (*nccl)->check(kNcclInvalidArgument, "ncclAllReduce");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            std::string("ncclAllReduce failed: ncclInvalidArgument (4): ") + text);
}

}  // namespace
}  // namespace jft::runtime::gpu
