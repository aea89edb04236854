// The helpers every native kernel's source starts with: fixed-width integer
// names, bit casts, f16/bf16 rounding, NaN-propagating max/min, StableHLO's
// integer division and shifts. Written for NVRTC (no headers) and, outside a
// CUDA compiler, as plain C++ over <math.h>, so a host compiler can run the
// same source under a small shim (the tests do).
#pragma once

#include <string_view>

namespace jft::codegen::native {

std::string_view kernelPrelude();

}  // namespace jft::codegen::native
