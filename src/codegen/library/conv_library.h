// Whether the device compiled for runs a convolution on its convolution
// library (cuDNN on CUDA). Only known at run time, and the compiler knows no
// CUDA: its caller answers (src/pjrt asks the runtime device, which loads the
// library and builds the description's plan, kept for execution). Without an
// answer, or with a refusal, the compiler keeps the patches + GEMM route.
#pragma once

#include "runtime/conv.h"
#include "support/status.h"

namespace jft::codegen::library {

class ConvLibrary {
 public:
  virtual ~ConvLibrary() = default;
  // OK when the library runs `desc`; else why not: UNAVAILABLE when the
  // library cannot be loaded at all, anything else when it refuses `desc`.
  virtual Status check(const runtime::ConvDesc& desc) = 0;
};

}  // namespace jft::codegen::library
