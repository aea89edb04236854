// Our cuFFT declarations against the toolkit's cufft.h (built only where the
// header exists): result, type and direction values and the shape of every
// entry point; where the library is installed, that it exports them all; and,
// where ptxas is found, that the inverse scale kernel's PTX assembles.
#include <cufft.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "runtime/gpu/cufft.h"
#include "runtime/gpu/cufft_api.h"
#include "runtime/gpu/fft_scale.h"

namespace jft::runtime::gpu {
namespace {

static_assert(kCufftSuccess == CUFFT_SUCCESS);
static_assert(kCufftInvalidPlan == CUFFT_INVALID_PLAN);
static_assert(kCufftAllocFailed == CUFFT_ALLOC_FAILED);
static_assert(kCufftInvalidType == CUFFT_INVALID_TYPE);
static_assert(kCufftInvalidValue == CUFFT_INVALID_VALUE);
static_assert(kCufftInternalError == CUFFT_INTERNAL_ERROR);
static_assert(kCufftExecFailed == CUFFT_EXEC_FAILED);
static_assert(kCufftSetupFailed == CUFFT_SETUP_FAILED);
static_assert(kCufftInvalidSize == CUFFT_INVALID_SIZE);
static_assert(kCufftUnalignedData == CUFFT_UNALIGNED_DATA);
static_assert(kCufftInvalidDevice == CUFFT_INVALID_DEVICE);
static_assert(kCufftNoWorkspace == CUFFT_NO_WORKSPACE);
static_assert(kCufftNotImplemented == CUFFT_NOT_IMPLEMENTED);
static_assert(kCufftNotSupported == CUFFT_NOT_SUPPORTED);

static_assert(kCufftR2C == CUFFT_R2C);
static_assert(kCufftC2R == CUFFT_C2R);
static_assert(kCufftC2C == CUFFT_C2C);
static_assert(kCufftD2Z == CUFFT_D2Z);
static_assert(kCufftZ2D == CUFFT_Z2D);
static_assert(kCufftZ2Z == CUFFT_Z2Z);
static_assert(kCufftForward == CUFFT_FORWARD);
static_assert(kCufftInverse == CUFFT_INVERSE);

static_assert(sizeof(::cufftHandle) == sizeof(cufftHandle));
static_assert(sizeof(::cufftResult) == sizeof(cufftResult));
static_assert(sizeof(::cufftType) == sizeof(cufftType));
static_assert(sizeof(::cudaStream_t) == sizeof(CUstream));
// The data pointers we pass as void* are interleaved (re, im) pairs.
static_assert(sizeof(::cufftComplex) == 2 * sizeof(float));
static_assert(sizeof(::cufftDoubleComplex) == 2 * sizeof(double));

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
JFT_CUFFT_FUNCTIONS(JFT_DECLARE_SIGNATURE)
#undef JFT_DECLARE_SIGNATURE

#define JFT_EXPECT_SHAPE(member, function)                                       \
  static_assert(sameShape(static_cast<member##Signature>(nullptr), &::function), \
                #function)
JFT_EXPECT_SHAPE(getVersion, cufftGetVersion);
JFT_EXPECT_SHAPE(create, cufftCreate);
JFT_EXPECT_SHAPE(makePlanMany64, cufftMakePlanMany64);
JFT_EXPECT_SHAPE(setStream, cufftSetStream);
JFT_EXPECT_SHAPE(destroy, cufftDestroy);
JFT_EXPECT_SHAPE(execC2C, cufftExecC2C);
JFT_EXPECT_SHAPE(execR2C, cufftExecR2C);
JFT_EXPECT_SHAPE(execC2R, cufftExecC2R);
JFT_EXPECT_SHAPE(execZ2Z, cufftExecZ2Z);
JFT_EXPECT_SHAPE(execD2Z, cufftExecD2Z);
JFT_EXPECT_SHAPE(execZ2D, cufftExecZ2D);
#undef JFT_EXPECT_SHAPE

// The names we dlsym are the exported ones: the header maps none of them.
#define JFT_STRINGIFY_INNER(x) #x
#define JFT_STRINGIFY(x) JFT_STRINGIFY_INNER(x)
TEST(CufftDecls, SymbolNamesAreNotRemapped) {
  EXPECT_STREQ(JFT_STRINGIFY(cufftMakePlanMany64), "cufftMakePlanMany64");
  EXPECT_STREQ(JFT_STRINGIFY(cufftExecC2C), "cufftExecC2C");
  EXPECT_STREQ(JFT_STRINGIFY(cufftExecZ2D), "cufftExecZ2D");
  EXPECT_STREQ(JFT_STRINGIFY(cufftSetStream), "cufftSetStream");
}

// Loading needs no GPU: where the library is installed every entry point we
// declare must resolve.
TEST(CufftDecls, LibraryExportsEveryEntryPoint) {
  StatusOr<const Cufft*> cufft = Cufft::load();
  if (!cufft.isOk()) GTEST_SKIP() << cufft.status().toString();
  int version = 0;
  EXPECT_EQ((*cufft)->getVersion(&version), CUFFT_SUCCESS);
  EXPECT_GE(version, 10000) << (*cufft)->library_name;
}

TEST(CufftDecls, ResultsBecomeStatusesNamingTheCall) {
  Status alloc = Cufft::check(kCufftAllocFailed, "cufftMakePlanMany64 for fft [8]");
  EXPECT_EQ(alloc.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(alloc.message(),
            "cufftMakePlanMany64 for fft [8] failed: CUFFT_ALLOC_FAILED (2)");
  EXPECT_EQ(Cufft::check(kCufftInvalidSize, "x").code(), StatusCode::kUnimplemented);
  EXPECT_EQ(Cufft::check(kCufftExecFailed, "x").code(), StatusCode::kInternal);
  EXPECT_NE(Cufft::check(99, "x").message().find("cuFFT error (99)"), std::string::npos);
  EXPECT_TRUE(Cufft::check(kCufftSuccess, "x").isOk());
}

// The driver compiles the scale kernels from PTX at run time; ptxas (the
// same compiler, offline) must accept the text for the GPUs we run on.
TEST(FftScalePtx, AssemblesForSm90) {
#ifndef JFT_PTXAS
  GTEST_SKIP() << "ptxas was not found at configure time";
#else
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("jft_fft_scale_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  {
    std::ofstream out(dir / "scale.ptx");
    out << FftScaleKernels::ptx();
  }
  // Appended piecewise: GCC 12 misreads a temporary built from the long
  // literal as overflowing its small-string buffer (-Warray-bounds).
  std::string command = JFT_PTXAS;
  command += " -arch=sm_90 " + (dir / "scale.ptx").string();
  command += " -o " + (dir / "scale.cubin").string() + " 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  EXPECT_GT(fs::file_size(dir / "scale.cubin"), 0u);
  fs::remove_all(dir);
#endif
}

}  // namespace
}  // namespace jft::runtime::gpu

#undef JFT_STRINGIFY_INNER
#undef JFT_STRINGIFY
