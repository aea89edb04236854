// Our own minimal declarations of the cuFFT entry points and values we use,
// in the manner of driver_api.h: the plugin builds with no CUDA toolkit, the
// library is opened with dlopen at run time, and the values below (ABI of the
// library) are checked against cufft.h by a test where it exists.
#pragma once

#include <cstddef>

#include "runtime/gpu/driver_api.h"

namespace jft::runtime::gpu {

using cufftResult = int;  // cufftResult_t
using cufftHandle = int;  // a plan
using cufftType = int;    // cufftType_t

// cufftResult_t values we name in errors; the rest print as numbers.
inline constexpr cufftResult kCufftSuccess = 0x0;
inline constexpr cufftResult kCufftInvalidPlan = 0x1;
inline constexpr cufftResult kCufftAllocFailed = 0x2;
inline constexpr cufftResult kCufftInvalidType = 0x3;
inline constexpr cufftResult kCufftInvalidValue = 0x4;
inline constexpr cufftResult kCufftInternalError = 0x5;
inline constexpr cufftResult kCufftExecFailed = 0x6;
inline constexpr cufftResult kCufftSetupFailed = 0x7;
inline constexpr cufftResult kCufftInvalidSize = 0x8;
inline constexpr cufftResult kCufftUnalignedData = 0x9;
inline constexpr cufftResult kCufftInvalidDevice = 0xB;
inline constexpr cufftResult kCufftNoWorkspace = 0xD;
inline constexpr cufftResult kCufftNotImplemented = 0xE;
inline constexpr cufftResult kCufftNotSupported = 0x10;

// cufftType_t
inline constexpr cufftType kCufftR2C = 0x2a;
inline constexpr cufftType kCufftC2R = 0x2c;
inline constexpr cufftType kCufftC2C = 0x29;
inline constexpr cufftType kCufftD2Z = 0x6a;
inline constexpr cufftType kCufftZ2D = 0x6c;
inline constexpr cufftType kCufftZ2Z = 0x69;

// The direction argument of the complex-to-complex executions.
inline constexpr int kCufftForward = -1;
inline constexpr int kCufftInverse = 1;

// The entry points, in the order they are resolved. X(name, symbol, signature).
// Data pointers are void*: the library's cufftComplex and friends are plain
// interleaved floats or doubles.
#define JFT_CUFFT_FUNCTIONS(X)                                                        \
  X(getVersion, "cufftGetVersion", cufftResult (*)(int*))                             \
  X(create, "cufftCreate", cufftResult (*)(cufftHandle*))                             \
  X(makePlanMany64, "cufftMakePlanMany64",                                            \
    cufftResult (*)(cufftHandle, int, long long*, long long*, long long, long long,   \
                    long long*, long long, long long, cufftType, long long, size_t*)) \
  X(setStream, "cufftSetStream", cufftResult (*)(cufftHandle, CUstream))              \
  X(destroy, "cufftDestroy", cufftResult (*)(cufftHandle))                            \
  X(execC2C, "cufftExecC2C", cufftResult (*)(cufftHandle, void*, void*, int))         \
  X(execR2C, "cufftExecR2C", cufftResult (*)(cufftHandle, void*, void*))              \
  X(execC2R, "cufftExecC2R", cufftResult (*)(cufftHandle, void*, void*))              \
  X(execZ2Z, "cufftExecZ2Z", cufftResult (*)(cufftHandle, void*, void*, int))         \
  X(execD2Z, "cufftExecD2Z", cufftResult (*)(cufftHandle, void*, void*))              \
  X(execZ2D, "cufftExecZ2D", cufftResult (*)(cufftHandle, void*, void*))

}  // namespace jft::runtime::gpu
