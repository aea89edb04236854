// Knobs of the IR text printer (printer.h, attribute_printer.h).
#pragma once

#include <cstdint>

namespace jft::ir {

struct PrintOptions {
  // Append `loc(...)` to every op and function: the frame a user looks at,
  // `loc("zoo.py":17:20)`, or `loc(unknown)`.
  bool print_locations = false;
  // With print_locations: the whole location instead (names, call sites,
  // fused lists, ranges), as MLIR prints it.
  bool full_locations = false;
  // Dense literals with more elements than this print as
  // `dense<...> (N elements)`; a negative value prints every element.
  // Splats always print in full (they are one value).
  int64_t max_dense_elements = -1;
};

}  // namespace jft::ir
