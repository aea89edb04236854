// stablehlo.fft as one library FFT (runtime/fft.h).
#pragma once

#include "compiler/library_calls.h"
#include "ir/module.h"
#include "support/status.h"

namespace jft::compiler {

// The call for `fft`, or why no library FFT computes it (naming the op's
// types): the reason is what fl_only lists for the op.
StatusOr<LibraryOpCall> lowerFftCall(const ir::Module& module, const ir::Op& fft);

}  // namespace jft::compiler
