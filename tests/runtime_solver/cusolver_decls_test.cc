// Our cuSOLVER / cuBLAS declarations against the toolkit's headers (built only
// where they exist): enum values must agree, and each entry point's header
// signature must pass the same number of arguments, each of the size and
// pointer-ness of ours (we declare the four element types once, with void
// pointers). Where the toolkit's libraries are installed next to the
// headers, loading them must resolve every entry point we use.
#include <cublas_api.h>
#include <cusolverDn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <type_traits>

#include "runtime/gpu/cusolver_api.h"
#include "runtime/gpu/cusolver_library.h"

namespace jft::runtime::gpu {
namespace {

static_assert(kCusolverSuccess == CUSOLVER_STATUS_SUCCESS);
static_assert(kCusolverNotInitialized == CUSOLVER_STATUS_NOT_INITIALIZED);
static_assert(kCusolverAllocFailed == CUSOLVER_STATUS_ALLOC_FAILED);
static_assert(kCusolverInvalidValue == CUSOLVER_STATUS_INVALID_VALUE);
static_assert(kCusolverArchMismatch == CUSOLVER_STATUS_ARCH_MISMATCH);
static_assert(kCusolverExecutionFailed == CUSOLVER_STATUS_EXECUTION_FAILED);
static_assert(kCusolverInternalError == CUSOLVER_STATUS_INTERNAL_ERROR);
static_assert(kCusolverNotSupported == CUSOLVER_STATUS_NOT_SUPPORTED);
static_assert(kCublasStatusSuccess == CUBLAS_STATUS_SUCCESS);
static_assert(kCublasStatusAllocFailed == CUBLAS_STATUS_ALLOC_FAILED);
static_assert(kCublasStatusNotSupported == CUBLAS_STATUS_NOT_SUPPORTED);
static_assert(kFillLower == CUBLAS_FILL_MODE_LOWER);
static_assert(kFillUpper == CUBLAS_FILL_MODE_UPPER);
static_assert(kSideLeft == CUBLAS_SIDE_LEFT);
static_assert(kSideRight == CUBLAS_SIDE_RIGHT);
static_assert(kOpN == CUBLAS_OP_N);
static_assert(kOpT == CUBLAS_OP_T);
static_assert(kOpC == CUBLAS_OP_C);
static_assert(kDiagNonUnit == CUBLAS_DIAG_NON_UNIT);
static_assert(kDiagUnit == CUBLAS_DIAG_UNIT);
static_assert(kEigModeNoVector == CUSOLVER_EIG_MODE_NOVECTOR);
static_assert(kEigModeVector == CUSOLVER_EIG_MODE_VECTOR);
static_assert(kSolverDataR32F == CUDA_R_32F);
static_assert(kSolverDataR64F == CUDA_R_64F);
static_assert(kSolverDataC32F == CUDA_C_32F);
static_assert(kSolverDataC64F == CUDA_C_64F);

// Same arity, and each argument (and the result) of the same size and
// pointer-ness: the calling convention passes them alike.
template <typename R1, typename... A1, typename R2, typename... A2>
constexpr bool sameAbi(R1 (*)(A1...), R2 (*)(A2...)) {
  if constexpr (sizeof...(A1) != sizeof...(A2)) {
    return false;
  } else {
    return sizeof(R1) == sizeof(R2) &&
           ((sizeof(A1) == sizeof(A2) &&
             std::is_pointer_v<A1> == std::is_pointer_v<A2>)&&...);
  }
}

#define JFT_EXPECT_ABI(header, ours) \
  static_assert(sameAbi(&header, static_cast<ours>(nullptr)), #header)

JFT_EXPECT_ABI(cusolverDnCreate, cusolverStatus_t (*)(cusolverDnHandle_t*));
JFT_EXPECT_ABI(cusolverDnDestroy, cusolverStatus_t (*)(cusolverDnHandle_t));
JFT_EXPECT_ABI(cusolverDnSetStream, cusolverStatus_t (*)(cusolverDnHandle_t, CUstream));
JFT_EXPECT_ABI(cusolverDnSgetrf_bufferSize, GetrfBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnDgetrf_bufferSize, GetrfBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnCgetrf_bufferSize, GetrfBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnZgetrf_bufferSize, GetrfBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnSgetrf, GetrfFn);
JFT_EXPECT_ABI(cusolverDnDgetrf, GetrfFn);
JFT_EXPECT_ABI(cusolverDnCgetrf, GetrfFn);
JFT_EXPECT_ABI(cusolverDnZgetrf, GetrfFn);
JFT_EXPECT_ABI(cusolverDnSpotrf_bufferSize, PotrfBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnDpotrf_bufferSize, PotrfBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnCpotrf_bufferSize, PotrfBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnZpotrf_bufferSize, PotrfBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnSpotrf, PotrfFn);
JFT_EXPECT_ABI(cusolverDnDpotrf, PotrfFn);
JFT_EXPECT_ABI(cusolverDnCpotrf, PotrfFn);
JFT_EXPECT_ABI(cusolverDnZpotrf, PotrfFn);
JFT_EXPECT_ABI(cusolverDnSgeqrf_bufferSize, GeqrfBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnZgeqrf_bufferSize, GeqrfBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnSgeqrf, GeqrfFn);
JFT_EXPECT_ABI(cusolverDnDgeqrf, GeqrfFn);
JFT_EXPECT_ABI(cusolverDnCgeqrf, GeqrfFn);
JFT_EXPECT_ABI(cusolverDnZgeqrf, GeqrfFn);
JFT_EXPECT_ABI(cusolverDnSorgqr_bufferSize, OrgqrBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnDorgqr_bufferSize, OrgqrBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnCungqr_bufferSize, OrgqrBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnZungqr_bufferSize, OrgqrBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnSorgqr, OrgqrFn);
JFT_EXPECT_ABI(cusolverDnDorgqr, OrgqrFn);
JFT_EXPECT_ABI(cusolverDnCungqr, OrgqrFn);
JFT_EXPECT_ABI(cusolverDnZungqr, OrgqrFn);
JFT_EXPECT_ABI(cusolverDnCreateSyevjInfo, cusolverStatus_t (*)(syevjInfo_t*));
JFT_EXPECT_ABI(cusolverDnDestroySyevjInfo, cusolverStatus_t (*)(syevjInfo_t));
JFT_EXPECT_ABI(cusolverDnCreateGesvdjInfo, cusolverStatus_t (*)(gesvdjInfo_t*));
JFT_EXPECT_ABI(cusolverDnDestroyGesvdjInfo, cusolverStatus_t (*)(gesvdjInfo_t));
JFT_EXPECT_ABI(cusolverDnSsyevd_bufferSize, SyevdBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnSsyevd, SyevdFn);
JFT_EXPECT_ABI(cusolverDnSsyevj_bufferSize, SyevjBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnSsyevj, SyevjFn);
JFT_EXPECT_ABI(cusolverDnSsyevjBatched_bufferSize, SyevjBatchedBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnSsyevjBatched, SyevjBatchedFn);
JFT_EXPECT_ABI(cusolverDnSgesvdj_bufferSize, GesvdjBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnSgesvdj, GesvdjFn);
JFT_EXPECT_ABI(cusolverDnSgesvdjBatched_bufferSize, GesvdjBatchedBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnSgesvdjBatched, GesvdjBatchedFn);
JFT_EXPECT_ABI(cusolverDnDsyevd_bufferSize, SyevdBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnDsyevd, SyevdFn);
JFT_EXPECT_ABI(cusolverDnDsyevj_bufferSize, SyevjBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnDsyevj, SyevjFn);
JFT_EXPECT_ABI(cusolverDnDsyevjBatched_bufferSize, SyevjBatchedBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnDsyevjBatched, SyevjBatchedFn);
JFT_EXPECT_ABI(cusolverDnDgesvdj_bufferSize, GesvdjBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnDgesvdj, GesvdjFn);
JFT_EXPECT_ABI(cusolverDnDgesvdjBatched_bufferSize, GesvdjBatchedBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnDgesvdjBatched, GesvdjBatchedFn);
JFT_EXPECT_ABI(cusolverDnCheevd_bufferSize, SyevdBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnCheevd, SyevdFn);
JFT_EXPECT_ABI(cusolverDnCheevj_bufferSize, SyevjBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnCheevj, SyevjFn);
JFT_EXPECT_ABI(cusolverDnCheevjBatched_bufferSize, SyevjBatchedBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnCheevjBatched, SyevjBatchedFn);
JFT_EXPECT_ABI(cusolverDnCgesvdj_bufferSize, GesvdjBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnCgesvdj, GesvdjFn);
JFT_EXPECT_ABI(cusolverDnCgesvdjBatched_bufferSize, GesvdjBatchedBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnCgesvdjBatched, GesvdjBatchedFn);
JFT_EXPECT_ABI(cusolverDnZheevd_bufferSize, SyevdBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnZheevd, SyevdFn);
JFT_EXPECT_ABI(cusolverDnZheevj_bufferSize, SyevjBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnZheevj, SyevjFn);
JFT_EXPECT_ABI(cusolverDnZheevjBatched_bufferSize, SyevjBatchedBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnZheevjBatched, SyevjBatchedFn);
JFT_EXPECT_ABI(cusolverDnZgesvdj_bufferSize, GesvdjBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnZgesvdj, GesvdjFn);
JFT_EXPECT_ABI(cusolverDnZgesvdjBatched_bufferSize, GesvdjBatchedBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnZgesvdjBatched, GesvdjBatchedFn);
JFT_EXPECT_ABI(cusolverDnSsytrd_bufferSize, SytrdBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnSsytrd, SytrdFn);
JFT_EXPECT_ABI(cusolverDnDsytrd_bufferSize, SytrdBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnDsytrd, SytrdFn);
JFT_EXPECT_ABI(cusolverDnChetrd_bufferSize, SytrdBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnChetrd, SytrdFn);
JFT_EXPECT_ABI(cusolverDnZhetrd_bufferSize, SytrdBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnZhetrd, SytrdFn);
JFT_EXPECT_ABI(cusolverDnSgesvd_bufferSize, GesvdBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnDgesvd_bufferSize, GesvdBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnCgesvd_bufferSize, GesvdBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnZgesvd_bufferSize, GesvdBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnSgesvd, GesvdFn);
JFT_EXPECT_ABI(cusolverDnDgesvd, GesvdFn);
JFT_EXPECT_ABI(cusolverDnCgesvd, GesvdFn);
JFT_EXPECT_ABI(cusolverDnZgesvd, GesvdFn);
JFT_EXPECT_ABI(cusolverDnCreateParams, cusolverStatus_t (*)(cusolverDnParams_t*));
JFT_EXPECT_ABI(cusolverDnDestroyParams, cusolverStatus_t (*)(cusolverDnParams_t));
JFT_EXPECT_ABI(cusolverDnXgesvdp_bufferSize, GesvdpBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnXgesvdp, GesvdpFn);
JFT_EXPECT_ABI(cusolverDnSormqr_bufferSize, OrmqrBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnDormqr_bufferSize, OrmqrBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnCunmqr_bufferSize, OrmqrBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnZunmqr_bufferSize, OrmqrBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnSormqr, OrmqrFn);
JFT_EXPECT_ABI(cusolverDnDormqr, OrmqrFn);
JFT_EXPECT_ABI(cusolverDnCunmqr, OrmqrFn);
JFT_EXPECT_ABI(cusolverDnZunmqr, OrmqrFn);
// Xgeev came with cuSOLVER 11.7.1 (CUDA 12.6 update 2); older headers lack it.
#if CUSOLVER_VERSION >= 11701
JFT_EXPECT_ABI(cusolverDnXgeev_bufferSize, GeevBufferSizeFn);
JFT_EXPECT_ABI(cusolverDnXgeev, GeevFn);
#endif
JFT_EXPECT_ABI(cublasCreate_v2, cublasStatusCode_t (*)(cublasHandle_t*));
JFT_EXPECT_ABI(cublasDestroy_v2, cublasStatusCode_t (*)(cublasHandle_t));
JFT_EXPECT_ABI(cublasSetStream_v2, cublasStatusCode_t (*)(cublasHandle_t, CUstream));
JFT_EXPECT_ABI(cublasGetStatusName, const char* (*)(cublasStatusCode_t));
JFT_EXPECT_ABI(cublasStrsm_v2, TrsmFn);
JFT_EXPECT_ABI(cublasDtrsm_v2, TrsmFn);
JFT_EXPECT_ABI(cublasCtrsm_v2, TrsmFn);
JFT_EXPECT_ABI(cublasZtrsm_v2, TrsmFn);

// The toolkit's own libraries, when installed beside its headers, have every
// entry point the runner resolves (no GPU needed to load them).
TEST(CusolverDecls, ToolkitLibrariesResolve) {
  namespace fs = std::filesystem;
  const fs::path dir = JFT_CUDA_LIBRARY_DIR;
  const fs::path solver = dir / "libcusolver.so", blas = dir / "libcublas.so";
  if (!fs::exists(solver) || !fs::exists(blas))
    GTEST_SKIP() << "no toolkit libraries in " << dir;
  setenv("JFT_CUSOLVER_LIBRARY", solver.c_str(), 1);
  setenv("JFT_CUBLAS_LIBRARY", blas.c_str(), 1);
  StatusOr<const CublasLibrary*> b = CublasLibrary::load();
  ASSERT_TRUE(b.isOk()) << b.status().toString();
  EXPECT_EQ((*b)->library_name, blas.string());
  EXPECT_STREQ((*b)->getStatusName(kCublasStatusNotSupported),
               "CUBLAS_STATUS_NOT_SUPPORTED");
  StatusOr<const CusolverLibrary*> s = CusolverLibrary::load();
  if (!s.isOk() && s.status().message().find("lacks") == std::string::npos)
    GTEST_SKIP() << "cuSOLVER's own dependencies do not load here: "
                 << s.status().toString();
  ASSERT_TRUE(s.isOk()) << s.status().toString();
  for (int t = 0; t < 4; ++t) {
    EXPECT_NE((*s)->getrf[t], nullptr);
    EXPECT_NE((*s)->potrf[t], nullptr);
    EXPECT_NE((*s)->geqrf[t], nullptr);
    EXPECT_NE((*s)->orgqr[t], nullptr);
    EXPECT_NE((*s)->syevd[t], nullptr);
    EXPECT_NE((*s)->syevj_batched[t], nullptr);
    EXPECT_NE((*s)->gesvdj[t], nullptr);
    EXPECT_NE((*s)->gesvdj_batched[t], nullptr);
    EXPECT_NE((*s)->sytrd[t], nullptr);
    EXPECT_NE((*s)->gesvd[t], nullptr);
    EXPECT_NE((*s)->ormqr[t], nullptr);
    EXPECT_NE((*b)->trsm[t], nullptr);
  }
  EXPECT_NE((*s)->gesvdp, nullptr);
#if CUSOLVER_VERSION >= 11701
  EXPECT_NE((*s)->geev, nullptr);
#endif
  Status failed = (*s)->check(kCusolverNotSupported, "cusolverDnSgetrf");
  EXPECT_EQ(failed.code(), StatusCode::kUnimplemented);
  EXPECT_NE(failed.message().find("CUSOLVER_STATUS_NOT_SUPPORTED"), std::string::npos);
}

}  // namespace
}  // namespace jft::runtime::gpu

#undef JFT_EXPECT_ABI
