// Knobs of the IR text printer (printer.h, attribute_printer.h).
#pragma once

#include <cstdint>

namespace jft::ir {

struct PrintOptions {
  // Append `loc(...)` to every op and function.
  bool print_locations = false;
  // Dense literals with more elements than this print as
  // `dense<...> (N elements)`; a negative value prints every element.
  // Splats always print in full (they are one value).
  int64_t max_dense_elements = -1;
};

}  // namespace jft::ir
