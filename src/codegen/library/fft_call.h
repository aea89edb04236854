// stablehlo.fft as one library FFT (runtime/fft.h): FFT/IFFT on complex64 or
// complex128, RFFT from float32/float64, IRFFT back to them, over the
// innermost 1..3 dims, every leading dim folded into the batch.
#pragma once

#include "codegen/library/library_calls.h"
#include "ir/module.h"
#include "support/status.h"

namespace jft::codegen::library {

// The call for `fft`: inputs {operand}, outputs {result}, and for IRFFT a
// workspace of the operand's bytes (the library overwrites what it reads, so
// the runner copies the operand there and never writes the caller's buffer).
// Or why no library FFT computes it (naming the op's types): the reason is
// what fl_only lists for the op. An empty FFT (a zero dim anywhere) is still a
// call, one the runtime skips.
StatusOr<LibraryOpCall> lowerFftCall(const ir::Module& module, const ir::Op& fft);

}  // namespace jft::codegen::library
