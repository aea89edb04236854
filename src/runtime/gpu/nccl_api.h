// Our own minimal declarations of the NCCL entry points and values we use, in
// the manner of driver_api.h: the plugin builds with no NCCL headers, the
// library is opened with dlopen at run time, and the values below (NCCL's
// stable C ABI, as its public nccl.h states them) are checked against nccl.h
// by a test where that header exists.
#pragma once

#include <cstddef>

#include "runtime/gpu/driver_api.h"

namespace jft::runtime::gpu {

using ncclResult_t = int;    // an enum in nccl.h (int-sized)
using ncclDataType_t = int;  // an enum in nccl.h
using ncclRedOp_t = int;     // an enum in nccl.h, int-sized for ABI stability
struct ncclComm;
using ncclComm_t = ncclComm*;

// ncclUniqueId: 128 opaque bytes, passed by value to ncclCommInitRank.
inline constexpr size_t kNcclUniqueIdBytes = 128;
struct ncclUniqueId {
  char internal[kNcclUniqueIdBytes];
};
static_assert(sizeof(ncclUniqueId) == 128);

// ncclResult_t
inline constexpr ncclResult_t kNcclSuccess = 0;
inline constexpr ncclResult_t kNcclUnhandledCudaError = 1;
inline constexpr ncclResult_t kNcclSystemError = 2;
inline constexpr ncclResult_t kNcclInternalError = 3;
inline constexpr ncclResult_t kNcclInvalidArgument = 4;
inline constexpr ncclResult_t kNcclInvalidUsage = 5;
inline constexpr ncclResult_t kNcclRemoteError = 6;
inline constexpr ncclResult_t kNcclInProgress = 7;
inline constexpr ncclResult_t kNcclTimeout = 8;  // newer NCCL only

// ncclDataType_t (the f8 types exist from NCCL 2.24 on)
inline constexpr ncclDataType_t kNcclInt8 = 0;
inline constexpr ncclDataType_t kNcclUint8 = 1;
inline constexpr ncclDataType_t kNcclInt32 = 2;
inline constexpr ncclDataType_t kNcclUint32 = 3;
inline constexpr ncclDataType_t kNcclInt64 = 4;
inline constexpr ncclDataType_t kNcclUint64 = 5;
inline constexpr ncclDataType_t kNcclFloat16 = 6;
inline constexpr ncclDataType_t kNcclFloat32 = 7;
inline constexpr ncclDataType_t kNcclFloat64 = 8;
inline constexpr ncclDataType_t kNcclBfloat16 = 9;
inline constexpr ncclDataType_t kNcclFloat8e4m3 = 10;
inline constexpr ncclDataType_t kNcclFloat8e5m2 = 11;

// ncclRedOp_t
inline constexpr ncclRedOp_t kNcclSum = 0;
inline constexpr ncclRedOp_t kNcclProd = 1;
inline constexpr ncclRedOp_t kNcclMax = 2;
inline constexpr ncclRedOp_t kNcclMin = 3;

// The entry points, in the order they are resolved. X(name, symbol, signature).
// Streams are cudaStream_t in nccl.h, the same handle as the driver's CUstream.
#define JFT_NCCL_FUNCTIONS(X)                                                           \
  X(getVersion, "ncclGetVersion", ncclResult_t (*)(int*))                               \
  X(getErrorString, "ncclGetErrorString", const char* (*)(ncclResult_t))                \
  X(getUniqueId, "ncclGetUniqueId", ncclResult_t (*)(ncclUniqueId*))                    \
  X(commInitRank, "ncclCommInitRank",                                                   \
    ncclResult_t (*)(ncclComm_t*, int, ncclUniqueId, int))                              \
  X(commInitAll, "ncclCommInitAll", ncclResult_t (*)(ncclComm_t*, int, const int*))     \
  X(commDestroy, "ncclCommDestroy", ncclResult_t (*)(ncclComm_t))                       \
  X(commAbort, "ncclCommAbort", ncclResult_t (*)(ncclComm_t))                           \
  X(commGetAsyncError, "ncclCommGetAsyncError",                                         \
    ncclResult_t (*)(ncclComm_t, ncclResult_t*))                                        \
  X(groupStart, "ncclGroupStart", ncclResult_t (*)())                                   \
  X(groupEnd, "ncclGroupEnd", ncclResult_t (*)())                                       \
  X(allReduce, "ncclAllReduce",                                                         \
    ncclResult_t (*)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t,           \
                     ncclComm_t, CUstream))                                             \
  X(allGather, "ncclAllGather",                                                         \
    ncclResult_t (*)(const void*, void*, size_t, ncclDataType_t, ncclComm_t, CUstream)) \
  X(reduceScatter, "ncclReduceScatter",                                                 \
    ncclResult_t (*)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t,           \
                     ncclComm_t, CUstream))                                             \
  X(broadcast, "ncclBroadcast",                                                         \
    ncclResult_t (*)(const void*, void*, size_t, ncclDataType_t, int, ncclComm_t,       \
                     CUstream))                                                         \
  X(send, "ncclSend",                                                                   \
    ncclResult_t (*)(const void*, size_t, ncclDataType_t, int, ncclComm_t, CUstream))   \
  X(recv, "ncclRecv",                                                                   \
    ncclResult_t (*)(void*, size_t, ncclDataType_t, int, ncclComm_t, CUstream))

}  // namespace jft::runtime::gpu
