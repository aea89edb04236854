// Our cuBLASLt declarations against the toolkit's cublasLt.h (built only where
// the header exists): enum values and the layout of the structs we pass by
// value must agree.
#include <cublasLt.h>
#include <gtest/gtest.h>

#include <cstddef>

#include "runtime/gpu/cublaslt.h"
#include "runtime/gpu/cublaslt_api.h"

namespace jft::runtime::gpu {
namespace {

static_assert(kCublasSuccess == CUBLAS_STATUS_SUCCESS);
static_assert(kCublasAllocFailed == CUBLAS_STATUS_ALLOC_FAILED);
static_assert(kCublasNotSupported == CUBLAS_STATUS_NOT_SUPPORTED);

static_assert(kCudaR16F == CUDA_R_16F);
static_assert(kCudaR16BF == CUDA_R_16BF);
static_assert(kCudaR32F == CUDA_R_32F);
static_assert(kCudaR64F == CUDA_R_64F);
static_assert(kCudaC32F == CUDA_C_32F);
static_assert(kCudaC64F == CUDA_C_64F);
static_assert(kCudaR8I == CUDA_R_8I);
static_assert(kCudaR32I == CUDA_R_32I);

static_assert(kCublasCompute32F == CUBLAS_COMPUTE_32F);
static_assert(kCublasCompute32FFastTf32 == CUBLAS_COMPUTE_32F_FAST_TF32);
static_assert(kCublasCompute64F == CUBLAS_COMPUTE_64F);
static_assert(kCublasCompute32I == CUBLAS_COMPUTE_32I);

static_assert(kCublasOpN == CUBLAS_OP_N);
static_assert(kCublasOpT == CUBLAS_OP_T);

static_assert(kMatmulDescTransA == CUBLASLT_MATMUL_DESC_TRANSA);
static_assert(kMatmulDescTransB == CUBLASLT_MATMUL_DESC_TRANSB);
static_assert(kMatmulDescEpilogue == CUBLASLT_MATMUL_DESC_EPILOGUE);
static_assert(kMatmulDescBiasPointer == CUBLASLT_MATMUL_DESC_BIAS_POINTER);
static_assert(kLayoutBatchCount == CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT);
static_assert(kLayoutStridedBatchOffset == CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET);
static_assert(kPrefMaxWorkspaceBytes == CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES);
static_assert(kPrefMinAlignmentABytes == CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES);
static_assert(kPrefMinAlignmentBBytes == CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES);
static_assert(kPrefMinAlignmentCBytes == CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES);
static_assert(kPrefMinAlignmentDBytes == CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES);

static_assert(kEpilogueDefault == CUBLASLT_EPILOGUE_DEFAULT);
static_assert(kEpilogueRelu == CUBLASLT_EPILOGUE_RELU);
static_assert(kEpilogueBias == CUBLASLT_EPILOGUE_BIAS);
static_assert(kEpilogueReluBias == CUBLASLT_EPILOGUE_RELU_BIAS);
static_assert(kEpilogueGelu == CUBLASLT_EPILOGUE_GELU);
static_assert(kEpilogueGeluBias == CUBLASLT_EPILOGUE_GELU_BIAS);

static_assert(sizeof(CublasLtMatmulAlgo) == sizeof(cublasLtMatmulAlgo_t));
static_assert(sizeof(CublasLtHeuristicResult) == sizeof(cublasLtMatmulHeuristicResult_t));
static_assert(offsetof(CublasLtHeuristicResult, workspaceSize) ==
              offsetof(cublasLtMatmulHeuristicResult_t, workspaceSize));
static_assert(offsetof(CublasLtHeuristicResult, state) ==
              offsetof(cublasLtMatmulHeuristicResult_t, state));
static_assert(offsetof(CublasLtHeuristicResult, wavesCount) ==
              offsetof(cublasLtMatmulHeuristicResult_t, wavesCount));

// Each of our entry-point types must match the header's declaration in
// arity and in the size of the result and of every parameter (our handle and
// enum types stand in for the header's).
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
JFT_CUBLASLT_FUNCTIONS(JFT_DECLARE_SIGNATURE)
#undef JFT_DECLARE_SIGNATURE

#define JFT_EXPECT_SHAPE(member, function)                                       \
  static_assert(sameShape(static_cast<member##Signature>(nullptr), &::function), \
                #function)
JFT_EXPECT_SHAPE(create, cublasLtCreate);
JFT_EXPECT_SHAPE(destroy, cublasLtDestroy);
JFT_EXPECT_SHAPE(getVersion, cublasLtGetVersion);
JFT_EXPECT_SHAPE(getStatusName, cublasLtGetStatusName);
JFT_EXPECT_SHAPE(getStatusString, cublasLtGetStatusString);
JFT_EXPECT_SHAPE(matmulDescCreate, cublasLtMatmulDescCreate);
JFT_EXPECT_SHAPE(matmulDescDestroy, cublasLtMatmulDescDestroy);
JFT_EXPECT_SHAPE(matmulDescSetAttribute, cublasLtMatmulDescSetAttribute);
JFT_EXPECT_SHAPE(matrixLayoutCreate, cublasLtMatrixLayoutCreate);
JFT_EXPECT_SHAPE(matrixLayoutDestroy, cublasLtMatrixLayoutDestroy);
JFT_EXPECT_SHAPE(matrixLayoutSetAttribute, cublasLtMatrixLayoutSetAttribute);
JFT_EXPECT_SHAPE(preferenceCreate, cublasLtMatmulPreferenceCreate);
JFT_EXPECT_SHAPE(preferenceDestroy, cublasLtMatmulPreferenceDestroy);
JFT_EXPECT_SHAPE(preferenceSetAttribute, cublasLtMatmulPreferenceSetAttribute);
JFT_EXPECT_SHAPE(algoGetHeuristic, cublasLtMatmulAlgoGetHeuristic);
JFT_EXPECT_SHAPE(matmul, cublasLtMatmul);
#undef JFT_EXPECT_SHAPE

// The names we dlsym are the exported ones: the header maps none of them to
// a versioned symbol.
#define JFT_STRINGIFY_INNER(x) #x
#define JFT_STRINGIFY(x) JFT_STRINGIFY_INNER(x)
TEST(CublasLtDecls, SymbolNamesAreNotRemapped) {
  EXPECT_STREQ(JFT_STRINGIFY(cublasLtMatmul), "cublasLtMatmul");
  EXPECT_STREQ(JFT_STRINGIFY(cublasLtMatmulAlgoGetHeuristic),
               "cublasLtMatmulAlgoGetHeuristic");
  EXPECT_STREQ(JFT_STRINGIFY(cublasLtMatrixLayoutCreate), "cublasLtMatrixLayoutCreate");
  EXPECT_STREQ(JFT_STRINGIFY(cublasLtMatmulDescCreate), "cublasLtMatmulDescCreate");
  EXPECT_STREQ(JFT_STRINGIFY(cublasLtCreate), "cublasLtCreate");
}

// Loading needs no GPU: where the library is installed every entry point we
// declare must resolve, and the version must be one we declared against.
TEST(CublasLtDecls, LibraryExportsEveryEntryPoint) {
  StatusOr<const CublasLt*> lt = CublasLt::load();
  if (!lt.isOk()) GTEST_SKIP() << lt.status().toString();
  EXPECT_EQ(lt.status().code(), StatusCode::kOk);
  EXPECT_GE((*lt)->getVersion(), 120000u) << (*lt)->library_name;
  EXPECT_STREQ((*lt)->getStatusName(CUBLAS_STATUS_NOT_SUPPORTED),
               "CUBLAS_STATUS_NOT_SUPPORTED");
  Status notSupported = (*lt)->check(kCublasNotSupported, "probe");
  EXPECT_EQ(notSupported.code(), StatusCode::kUnimplemented);
  EXPECT_NE(notSupported.message().find("CUBLAS_STATUS_NOT_SUPPORTED"), std::string::npos)
      << notSupported.message();
}

}  // namespace
}  // namespace jft::runtime::gpu

#undef JFT_STRINGIFY_INNER
#undef JFT_STRINGIFY
