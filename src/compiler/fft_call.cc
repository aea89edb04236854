// fft -> FftDesc.
#include "compiler/fft_call.h"

namespace jft::compiler {

StatusOr<LibraryOpCall> lowerFftCall(const ir::Module&, const ir::Op&) {
  return unimplemented("no library route for fft yet");
}

}  // namespace jft::compiler
