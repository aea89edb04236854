// Small integer helpers over dimension lists and tile counts, shared by the
// emitters (each once kept its own copy).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace jft {

// The product of `values`; 1 for none (a shape's element count).
inline int64_t product(const std::vector<int64_t>& values) {
  int64_t p = 1;
  for (int64_t v : values) p *= v;
  return p;
}

// The product of the extents `shape` has at `dims` (a dot's batch, free or
// contracting size); each of `dims` must index `shape`.
inline int64_t product(const std::vector<int64_t>& shape,
                       const std::vector<int64_t>& dims) {
  int64_t p = 1;
  for (int64_t d : dims) p *= shape[static_cast<size_t>(d)];
  return p;
}

// Whether `values` holds `value` (a dimension among dimension numbers).
inline bool contains(const std::vector<int64_t>& values, int64_t value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

// The smallest power of two >= n (1 for n <= 1).
inline int64_t nextPow2(int64_t n) {
  int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

// a / b rounded up, for a >= 0 and b > 0: the tiles of size b that cover a.
inline constexpr int64_t ceilDiv(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

}  // namespace jft
