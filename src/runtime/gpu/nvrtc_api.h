// Our own minimal declarations of the NVRTC C API subset we call (runtime
// compilation of CUDA C++ to cubin), in the manner of driver_api.h: the
// plugin builds with no CUDA toolkit and opens libnvrtc with dlopen.
#pragma once

#include <cstddef>

namespace jft::runtime::gpu {

using nvrtcResult = int;                          // nvrtcResult enum
using nvrtcProgram = struct NvrtcProgramOpaque*;  // _nvrtcProgram*

inline constexpr nvrtcResult kNvrtcSuccess = 0;
inline constexpr nvrtcResult kNvrtcErrorCompilation = 6;

// The entry points, in the order they are resolved. X(name, symbol, signature).
#define JFT_NVRTC_FUNCTIONS(X)                                                           \
  X(version, "nvrtcVersion", nvrtcResult (*)(int*, int*))                                \
  X(getErrorString, "nvrtcGetErrorString", const char* (*)(nvrtcResult))                 \
  X(createProgram, "nvrtcCreateProgram",                                                 \
    nvrtcResult (*)(nvrtcProgram*, const char*, const char*, int, const char* const*,    \
                    const char* const*))                                                 \
  X(destroyProgram, "nvrtcDestroyProgram", nvrtcResult (*)(nvrtcProgram*))               \
  X(compileProgram, "nvrtcCompileProgram",                                               \
    nvrtcResult (*)(nvrtcProgram, int, const char* const*))                              \
  X(getCubinSize, "nvrtcGetCUBINSize", nvrtcResult (*)(nvrtcProgram, size_t*))           \
  X(getCubin, "nvrtcGetCUBIN", nvrtcResult (*)(nvrtcProgram, char*))                     \
  X(getProgramLogSize, "nvrtcGetProgramLogSize", nvrtcResult (*)(nvrtcProgram, size_t*)) \
  X(getProgramLog, "nvrtcGetProgramLog", nvrtcResult (*)(nvrtcProgram, char*))

}  // namespace jft::runtime::gpu
