// The ops StableHLO defines as a function of C's math library (CUDA's and
// libdevice's share the names): both backends call these by name rather
// than write them out, as XLA's GPU backend does.
#pragma once

#include "ir/op_kind.h"

namespace jft::codegen::common {

// The function's double-precision name ("fmod", "expm1", "rint"), or null
// when `kind` is not one of them. Float variants add an "f" suffix.
const char* cMathFunction(ir::OpKind kind);

}  // namespace jft::codegen::common
