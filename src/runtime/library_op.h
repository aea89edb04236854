// Library operations other than the matrix product (runtime/gemm.h): each a
// description a device's library runner executes on the buffers its
// LibraryThunk lists, in the order the description's header documents.
#pragma once

#include <string>
#include <variant>

#include "runtime/conv.h"
#include "runtime/fft.h"
#include "runtime/solver.h"

namespace jft::runtime {

using LibraryOp = std::variant<FftDesc, SolverDesc, ConvDesc>;

// The description's text, for errors and logs.
std::string libraryOpText(const LibraryOp& op);

}  // namespace jft::runtime
