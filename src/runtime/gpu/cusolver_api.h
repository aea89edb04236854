// Our own minimal declarations of the cuSOLVER (dense) and cuBLAS entry points
// and enum values the solver runner uses, in the manner of driver_api.h: the
// plugin builds with no CUDA toolkit, the libraries are opened with dlopen at
// run time, and the values below (ABI of the libraries) are checked against
// cusolverDn.h / cublas_api.h by a test where they exist.
//
// The four element types of each routine (S, D, C, Z) differ only in the
// pointee type of their matrix and scalar pointers, so each is declared once
// with void pointers and resolved four times.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/gpu/driver_api.h"

namespace jft::runtime::gpu {

using cusolverStatus_t = int;
using cublasStatusCode_t = int;
struct cusolverDnContext;
using cusolverDnHandle_t = cusolverDnContext*;
struct cublasContext;
using cublasHandle_t = cublasContext*;
// The Jacobi routines' parameter objects (tolerance, sweeps, sorting); the
// defaults are used, as JAX does.
struct syevjInfo;
using syevjInfo_t = syevjInfo*;
struct gesvdjInfo;
using gesvdjInfo_t = gesvdjInfo*;
// The 64-bit API's options object (gesvdp only: it has no 32-bit form).
struct cusolverDnParams;
using cusolverDnParams_t = cusolverDnParams*;

inline constexpr cusolverStatus_t kCusolverSuccess = 0;
inline constexpr cusolverStatus_t kCusolverNotInitialized = 1;
inline constexpr cusolverStatus_t kCusolverAllocFailed = 2;
inline constexpr cusolverStatus_t kCusolverInvalidValue = 3;
inline constexpr cusolverStatus_t kCusolverArchMismatch = 4;
inline constexpr cusolverStatus_t kCusolverExecutionFailed = 6;
inline constexpr cusolverStatus_t kCusolverInternalError = 7;
inline constexpr cusolverStatus_t kCusolverNotSupported = 9;

inline constexpr cublasStatusCode_t kCublasStatusSuccess = 0;
inline constexpr cublasStatusCode_t kCublasStatusAllocFailed = 3;
inline constexpr cublasStatusCode_t kCublasStatusNotSupported = 15;

// cublasFillMode_t, cublasSideMode_t, cublasOperation_t, cublasDiagType_t
// (cuSOLVER takes cuBLAS's fill mode).
inline constexpr int kFillLower = 0;
inline constexpr int kFillUpper = 1;
inline constexpr int kSideLeft = 0;
inline constexpr int kSideRight = 1;
inline constexpr int kOpN = 0;
inline constexpr int kOpT = 1;
inline constexpr int kOpC = 2;
inline constexpr int kDiagNonUnit = 0;
inline constexpr int kDiagUnit = 1;
// cusolverEigMode_t: whether eigenvectors (singular vectors) are computed.
inline constexpr int kEigModeNoVector = 0;
inline constexpr int kEigModeVector = 1;
// cudaDataType_t of the 64-bit API's matrices: f32, f64, c64, c128.
inline constexpr int kSolverDataR32F = 0;
inline constexpr int kSolverDataR64F = 1;
inline constexpr int kSolverDataC32F = 4;
inline constexpr int kSolverDataC64F = 5;

// cuSOLVER entry points, in the order they are resolved. X(name, symbol, signature).
#define JFT_CUSOLVER_FUNCTIONS(X)                                                        \
  X(create, "cusolverDnCreate", cusolverStatus_t (*)(cusolverDnHandle_t*))               \
  X(destroy, "cusolverDnDestroy", cusolverStatus_t (*)(cusolverDnHandle_t))              \
  X(setStream, "cusolverDnSetStream",                                                    \
    cusolverStatus_t (*)(cusolverDnHandle_t, CUstream))                                  \
  X(createSyevjInfo, "cusolverDnCreateSyevjInfo", cusolverStatus_t (*)(syevjInfo_t*))    \
  X(destroySyevjInfo, "cusolverDnDestroySyevjInfo", cusolverStatus_t (*)(syevjInfo_t))   \
  X(createGesvdjInfo, "cusolverDnCreateGesvdjInfo", cusolverStatus_t (*)(gesvdjInfo_t*)) \
  X(destroyGesvdjInfo, "cusolverDnDestroyGesvdjInfo",                                    \
    cusolverStatus_t (*)(gesvdjInfo_t))                                                  \
  X(createParams, "cusolverDnCreateParams", cusolverStatus_t (*)(cusolverDnParams_t*))   \
  X(destroyParams, "cusolverDnDestroyParams", cusolverStatus_t (*)(cusolverDnParams_t))  \
  X(gesvdpBufferSize, "cusolverDnXgesvdp_bufferSize", GesvdpBufferSizeFn)                \
  X(gesvdp, "cusolverDnXgesvdp", GesvdpFn)

// Per element type T (S, D, C, Z), "cusolverDn" T "getrf_bufferSize" etc.:
// getrf_bufferSize(handle, m, n, A, lda, *lwork), getrf(handle, m, n, A, lda,
// work, ipiv, info), potrf_bufferSize(handle, uplo, n, A, lda, *lwork),
// potrf(handle, uplo, n, A, lda, work, lwork, info); lwork counts elements.
using GetrfBufferSizeFn = cusolverStatus_t (*)(cusolverDnHandle_t, int, int, void*, int,
                                               int*);
using GetrfFn = cusolverStatus_t (*)(cusolverDnHandle_t, int, int, void*, int, void*,
                                     int*, int*);
using PotrfBufferSizeFn = cusolverStatus_t (*)(cusolverDnHandle_t, int, int, void*, int,
                                               int*);
using PotrfFn = cusolverStatus_t (*)(cusolverDnHandle_t, int, int, void*, int, void*, int,
                                     int*);
// geqrf_bufferSize(handle, m, n, A, lda, *lwork), geqrf(handle, m, n, A, lda,
// tau, work, lwork, info); orgqr (ungqr for C, Z) _bufferSize(handle, m, n,
// k, A, lda, tau, *lwork), orgqr(handle, m, n, k, A, lda, tau, work, lwork, info).
using GeqrfBufferSizeFn = cusolverStatus_t (*)(cusolverDnHandle_t, int, int, void*, int,
                                               int*);
using GeqrfFn = cusolverStatus_t (*)(cusolverDnHandle_t, int, int, void*, int, void*,
                                     void*, int, int*);
using OrgqrBufferSizeFn = cusolverStatus_t (*)(cusolverDnHandle_t, int, int, int,
                                               const void*, int, const void*, int*);
using OrgqrFn = cusolverStatus_t (*)(cusolverDnHandle_t, int, int, int, void*, int,
                                     const void*, void*, int, int*);

// syevd (heevd for C, Z) _bufferSize(handle, jobz, uplo, n, A, lda, W,
// *lwork), syevd(handle, jobz, uplo, n, A, lda, W, work, lwork, info); W
// real. syevj (heevj) and syevjBatched take the same arguments and then the
// parameter object (and the batch size); syevjBatched needs n <= 32.
using SyevdBufferSizeFn = cusolverStatus_t (*)(cusolverDnHandle_t, int, int, int,
                                               const void*, int, const void*, int*);
using SyevdFn = cusolverStatus_t (*)(cusolverDnHandle_t, int, int, int, void*, int, void*,
                                     void*, int, int*);
using SyevjBufferSizeFn = cusolverStatus_t (*)(cusolverDnHandle_t, int, int, int,
                                               const void*, int, const void*, int*,
                                               syevjInfo_t);
using SyevjFn = cusolverStatus_t (*)(cusolverDnHandle_t, int, int, int, void*, int, void*,
                                     void*, int, int*, syevjInfo_t);
using SyevjBatchedBufferSizeFn = cusolverStatus_t (*)(cusolverDnHandle_t, int, int, int,
                                                      const void*, int, const void*, int*,
                                                      syevjInfo_t, int);
using SyevjBatchedFn = cusolverStatus_t (*)(cusolverDnHandle_t, int, int, int, void*, int,
                                            void*, void*, int, int*, syevjInfo_t, int);
// gesvdj_bufferSize(handle, jobz, econ, m, n, A, lda, S, U, ldu, V, ldv,
// *lwork, params), gesvdj(handle, jobz, econ, m, n, A, lda, S, U, ldu, V,
// ldv, work, lwork, info, params); gesvdjBatched (m, n <= 32, full U and V)
// the same without econ and with the batch size last. S real; V, not V^H.
using GesvdjBufferSizeFn = cusolverStatus_t (*)(cusolverDnHandle_t, int, int, int, int,
                                                const void*, int, const void*,
                                                const void*, int, const void*, int, int*,
                                                gesvdjInfo_t);
using GesvdjFn = cusolverStatus_t (*)(cusolverDnHandle_t, int, int, int, int, void*, int,
                                      void*, void*, int, void*, int, void*, int, int*,
                                      gesvdjInfo_t);
using GesvdjBatchedBufferSizeFn = cusolverStatus_t (*)(cusolverDnHandle_t, int, int, int,
                                                       const void*, int, const void*,
                                                       const void*, int, const void*, int,
                                                       int*, gesvdjInfo_t, int);
using GesvdjBatchedFn = cusolverStatus_t (*)(cusolverDnHandle_t, int, int, int, void*,
                                             int, void*, void*, int, void*, int, void*,
                                             int, int*, gesvdjInfo_t, int);

// gesvd_bufferSize(handle, m, n, *lwork), gesvd(handle, jobu, jobvt, m, n,
// A, lda, S, U, ldu, VT, ldvt, work, lwork, rwork, info): m >= n; jobu and
// jobvt 'A' (all columns of U, rows of V^H), 'S' (the first min(m, n)) or
// 'N' (none); S real; rwork (real, min(m, n) - 1, the unconverged
// superdiagonal) may be null.
using GesvdBufferSizeFn = cusolverStatus_t (*)(cusolverDnHandle_t, int, int, int*);
using GesvdFn = cusolverStatus_t (*)(cusolverDnHandle_t, signed char, signed char, int,
                                     int, void*, int, void*, void*, int, void*, int,
                                     void*, int, void*, int*);
// The 64-bit cusolverDnXgesvdp_bufferSize(handle, params, jobz, econ, m, n,
// typeA, A, lda, typeS, S, typeU, U, ldu, typeV, V, ldv, computeType,
// *deviceBytes, *hostBytes) and cusolverDnXgesvdp(the same through
// computeType, then deviceWork, deviceBytes, hostWork, hostBytes, info,
// *h_err_sigma (a host double)); V, not V^H; any m, n.
using GesvdpBufferSizeFn = cusolverStatus_t (*)(cusolverDnHandle_t, cusolverDnParams_t,
                                                int, int, int64_t, int64_t, int,
                                                const void*, int64_t, int, const void*,
                                                int, const void*, int64_t, int,
                                                const void*, int64_t, int, size_t*,
                                                size_t*);
using GesvdpFn = cusolverStatus_t (*)(cusolverDnHandle_t, cusolverDnParams_t, int, int,
                                      int64_t, int64_t, int, void*, int64_t, int, void*,
                                      int, void*, int64_t, int, void*, int64_t, int,
                                      void*, size_t, void*, size_t, int*, double*);

// sytrd (hetrd for C, Z) _bufferSize(handle, uplo, n, A, lda, d, e, tau,
// *lwork), sytrd(handle, uplo, n, A, lda, d, e, tau, work, lwork, info); d
// and e real.
using SytrdBufferSizeFn = cusolverStatus_t (*)(cusolverDnHandle_t, int, int, const void*,
                                               int, const void*, const void*, const void*,
                                               int*);
using SytrdFn = cusolverStatus_t (*)(cusolverDnHandle_t, int, int, void*, int, void*,
                                     void*, void*, void*, int, int*);

// ormqr (unmqr for C, Z) _bufferSize(handle, side, trans, m, n, k, A, lda,
// tau, C, ldc, *lwork), ormqr(handle, side, trans, m, n, k, A, lda, tau, C,
// ldc, work, lwork, info): C (m x n) becomes op(Q) C or C op(Q), Q of order
// m (left) or n (right) from k reflectors in A's columns; trans N or T for
// S, D, N or C for C, Z.
using OrmqrBufferSizeFn = cusolverStatus_t (*)(cusolverDnHandle_t, int, int, int, int,
                                               int, const void*, int, const void*,
                                               const void*, int, int*);
using OrmqrFn = cusolverStatus_t (*)(cusolverDnHandle_t, int, int, int, int, int,
                                     const void*, int, const void*, void*, int, void*,
                                     int, int*);

// The 64-bit cusolverDnXgeev_bufferSize(handle, params, jobvl, jobvr, n,
// typeA, A, lda, typeW, W, typeVL, VL, ldvl, typeVR, VR, ldvr, computeType,
// *deviceBytes, *hostBytes) and cusolverDnXgeev(the same through
// computeType, then deviceWork, deviceBytes, hostWork, hostBytes, info).
// Only in cuSOLVER 11.7.1 (CUDA 12.6 update 2) and newer, so resolved
// apart from the rest: an older library still loads, without geev.
using GeevBufferSizeFn = cusolverStatus_t (*)(cusolverDnHandle_t, cusolverDnParams_t, int,
                                              int, int64_t, int, const void*, int64_t,
                                              int, const void*, int, const void*, int64_t,
                                              int, const void*, int64_t, int, size_t*,
                                              size_t*);
using GeevFn = cusolverStatus_t (*)(cusolverDnHandle_t, cusolverDnParams_t, int, int,
                                    int64_t, int, void*, int64_t, int, void*, int, void*,
                                    int64_t, int, void*, int64_t, int, void*, size_t,
                                    void*, size_t, int*);

// The routines resolved per element type T (S, D, C, Z), each with its
// workspace query: "cusolverDn" T name "_bufferSize" and "cusolverDn" T name,
// the name for S, D first and for C, Z second. X(member, Type, name, complex
// name): the member's signatures are TypeBufferSizeFn and TypeFn.
#define JFT_CUSOLVER_TYPED_ROUTINES(X)                               \
  X(getrf, Getrf, "getrf", "getrf")                                  \
  X(potrf, Potrf, "potrf", "potrf")                                  \
  X(geqrf, Geqrf, "geqrf", "geqrf")                                  \
  X(orgqr, Orgqr, "orgqr", "ungqr")                                  \
  X(syevd, Syevd, "syevd", "heevd")                                  \
  X(syevj, Syevj, "syevj", "heevj")                                  \
  X(syevj_batched, SyevjBatched, "syevjBatched", "heevjBatched")     \
  X(gesvdj, Gesvdj, "gesvdj", "gesvdj")                              \
  X(gesvdj_batched, GesvdjBatched, "gesvdjBatched", "gesvdjBatched") \
  X(gesvd, Gesvd, "gesvd", "gesvd")                                  \
  X(sytrd, Sytrd, "sytrd", "hetrd")                                  \
  X(ormqr, Ormqr, "ormqr", "unmqr")

// cuBLAS entry points. X(name, symbol, signature).
#define JFT_CUBLAS_FUNCTIONS(X)                                                        \
  X(create, "cublasCreate_v2", cublasStatusCode_t (*)(cublasHandle_t*))                \
  X(destroy, "cublasDestroy_v2", cublasStatusCode_t (*)(cublasHandle_t))               \
  X(setStream, "cublasSetStream_v2", cublasStatusCode_t (*)(cublasHandle_t, CUstream)) \
  X(getStatusName, "cublasGetStatusName", const char* (*)(cublasStatusCode_t))         \
  X(getStatusString, "cublasGetStatusString", const char* (*)(cublasStatusCode_t))

// cublas<T>trsm_v2(handle, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb),
// alpha a host pointer (the handle's default pointer mode).
using TrsmFn = cublasStatusCode_t (*)(cublasHandle_t, int, int, int, int, int, int,
                                      const void*, const void*, int, void*, int);

}  // namespace jft::runtime::gpu
