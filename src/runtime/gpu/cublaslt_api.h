// Our own minimal declarations of the cuBLASLt entry points and enum values we
// use, in the manner of driver_api.h: the plugin builds with no CUDA toolkit,
// the library is opened with dlopen at run time, and the values below (ABI of
// the library) are checked against cublasLt.h by a test where it exists.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/gpu/driver_api.h"

namespace jft::runtime::gpu {

using cublasStatus_t = int;
struct cublasLtContext;
using cublasLtHandle_t = cublasLtContext*;
// The descriptors are opaque structs the library allocates; only their
// pointers cross our code.
struct CublasLtMatmulDescOpaque;
using cublasLtMatmulDesc_t = CublasLtMatmulDescOpaque*;
struct CublasLtMatrixLayoutOpaque;
using cublasLtMatrixLayout_t = CublasLtMatrixLayoutOpaque*;
struct CublasLtMatmulPreferenceOpaque;
using cublasLtMatmulPreference_t = CublasLtMatmulPreferenceOpaque*;

// Returned by value from the heuristic and passed back to cublasLtMatmul, so
// its layout is ABI: an opaque 64-byte algorithm, then the result fields.
struct CublasLtMatmulAlgo {
  uint64_t data[8];
};
struct CublasLtHeuristicResult {
  CublasLtMatmulAlgo algo;
  size_t workspaceSize;
  cublasStatus_t state;
  float wavesCount;
  int reserved[4];
};

inline constexpr cublasStatus_t kCublasSuccess = 0;
inline constexpr cublasStatus_t kCublasAllocFailed = 3;
inline constexpr cublasStatus_t kCublasNotSupported = 15;

// cudaDataType_t
inline constexpr int kCudaR16F = 2;
inline constexpr int kCudaR16BF = 14;
inline constexpr int kCudaR32F = 0;
inline constexpr int kCudaR64F = 1;
inline constexpr int kCudaC32F = 4;
inline constexpr int kCudaC64F = 5;
inline constexpr int kCudaR8I = 3;
inline constexpr int kCudaR32I = 10;

// cublasComputeType_t
inline constexpr int kCublasCompute32F = 68;
inline constexpr int kCublasCompute32FFastTf32 = 77;
inline constexpr int kCublasCompute64F = 70;
inline constexpr int kCublasCompute32I = 72;

// cublasOperation_t
inline constexpr int32_t kCublasOpN = 0;
inline constexpr int32_t kCublasOpT = 1;

// cublasLtMatmulDescAttributes_t
inline constexpr int kMatmulDescTransA = 3;
inline constexpr int kMatmulDescTransB = 4;
inline constexpr int kMatmulDescEpilogue = 7;
inline constexpr int kMatmulDescBiasPointer = 8;

// cublasLtMatrixLayoutAttribute_t
inline constexpr int kLayoutBatchCount = 5;
inline constexpr int kLayoutStridedBatchOffset = 6;

// cublasLtMatmulPreferenceAttributes_t
inline constexpr int kPrefMaxWorkspaceBytes = 1;
inline constexpr int kPrefMinAlignmentABytes = 5;
inline constexpr int kPrefMinAlignmentBBytes = 6;
inline constexpr int kPrefMinAlignmentCBytes = 7;
inline constexpr int kPrefMinAlignmentDBytes = 8;

// cublasLtEpilogue_t
inline constexpr uint32_t kEpilogueDefault = 1;
inline constexpr uint32_t kEpilogueRelu = 2;
inline constexpr uint32_t kEpilogueBias = 4;
inline constexpr uint32_t kEpilogueReluBias = 6;
inline constexpr uint32_t kEpilogueGelu = 32;
inline constexpr uint32_t kEpilogueGeluBias = 36;

// The entry points, in the order they are resolved. X(name, symbol, signature).
#define JFT_CUBLASLT_FUNCTIONS(X)                                                        \
  X(create, "cublasLtCreate", cublasStatus_t (*)(cublasLtHandle_t*))                     \
  X(destroy, "cublasLtDestroy", cublasStatus_t (*)(cublasLtHandle_t))                    \
  X(getVersion, "cublasLtGetVersion", size_t (*)())                                      \
  X(getStatusName, "cublasLtGetStatusName", const char* (*)(cublasStatus_t))             \
  X(getStatusString, "cublasLtGetStatusString", const char* (*)(cublasStatus_t))         \
  X(matmulDescCreate, "cublasLtMatmulDescCreate",                                        \
    cublasStatus_t (*)(cublasLtMatmulDesc_t*, int, int))                                 \
  X(matmulDescDestroy, "cublasLtMatmulDescDestroy",                                      \
    cublasStatus_t (*)(cublasLtMatmulDesc_t))                                            \
  X(matmulDescSetAttribute, "cublasLtMatmulDescSetAttribute",                            \
    cublasStatus_t (*)(cublasLtMatmulDesc_t, int, const void*, size_t))                  \
  X(matrixLayoutCreate, "cublasLtMatrixLayoutCreate",                                    \
    cublasStatus_t (*)(cublasLtMatrixLayout_t*, int, uint64_t, uint64_t, int64_t))       \
  X(matrixLayoutDestroy, "cublasLtMatrixLayoutDestroy",                                  \
    cublasStatus_t (*)(cublasLtMatrixLayout_t))                                          \
  X(matrixLayoutSetAttribute, "cublasLtMatrixLayoutSetAttribute",                        \
    cublasStatus_t (*)(cublasLtMatrixLayout_t, int, const void*, size_t))                \
  X(preferenceCreate, "cublasLtMatmulPreferenceCreate",                                  \
    cublasStatus_t (*)(cublasLtMatmulPreference_t*))                                     \
  X(preferenceDestroy, "cublasLtMatmulPreferenceDestroy",                                \
    cublasStatus_t (*)(cublasLtMatmulPreference_t))                                      \
  X(preferenceSetAttribute, "cublasLtMatmulPreferenceSetAttribute",                      \
    cublasStatus_t (*)(cublasLtMatmulPreference_t, int, const void*, size_t))            \
  X(algoGetHeuristic, "cublasLtMatmulAlgoGetHeuristic",                                  \
    cublasStatus_t (*)(cublasLtHandle_t, cublasLtMatmulDesc_t, cublasLtMatrixLayout_t,   \
                       cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,                   \
                       cublasLtMatrixLayout_t, cublasLtMatmulPreference_t, int,          \
                       CublasLtHeuristicResult*, int*))                                  \
  X(matmul, "cublasLtMatmul",                                                            \
    cublasStatus_t (*)(cublasLtHandle_t, cublasLtMatmulDesc_t, const void*, const void*, \
                       cublasLtMatrixLayout_t, const void*, cublasLtMatrixLayout_t,      \
                       const void*, const void*, cublasLtMatrixLayout_t, void*,          \
                       cublasLtMatrixLayout_t, const CublasLtMatmulAlgo*, void*, size_t, \
                       CUstream))

}  // namespace jft::runtime::gpu
