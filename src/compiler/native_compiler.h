// The seam through which the compiler turns the native route's CUDA C into
// binaries: implemented above it (src/pjrt, on the device compiled for,
// whose runtime compiler is NVRTC on CUDA), as the Measurer and the
// ConvLibrary are, so the compiler knows nothing of NVRTC or CUDA. The
// compiler caches what it returns (native_binaries.h).
#pragma once

#include <string>

#include "support/status.h"

namespace jft::compiler {

class NativeCompiler {
 public:
  virtual ~NativeCompiler() = default;

  // Names the compiler and the target it builds for ("nvrtc 12.8 sm_90"):
  // part of the cache key, so a binary is reused only by the same compiler
  // for the same architecture. UNAVAILABLE when the compiler cannot be
  // loaded (the message says where it was looked for).
  virtual StatusOr<std::string> identity() = 0;

  // `source` (one translation unit, no includes) as a binary the runtime
  // loads (a cubin); `name` is the kernel's entry point, for messages.
  virtual StatusOr<std::string> compile(const std::string& source,
                                        const std::string& name) = 0;
};

}  // namespace jft::compiler
