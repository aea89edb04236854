// Array shapes at the ABI: validation, byte sizes, dense strides, repacking.
//
// Byte sizes are computed with overflow checks; a shape whose size does not fit
// in 63 bits is INVALID_ARGUMENT, never a wrapped-around small allocation.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "pjrt/abi.h"
#include "support/status.h"

namespace jft::pjrt {

inline constexpr size_t kMaxRank = 64;

// Rejects negative dimensions, absurd ranks and a null pointer with rank > 0.
Status validateDims(const int64_t* dims, size_t numDims);

// Product of `dims` times `elementBytes`, or INVALID_ARGUMENT on overflow.
StatusOr<uint64_t> denseByteSize(std::span<const int64_t> dims, uint64_t elementBytes);

// An array a caller describes by element type and dims: the bytes of one
// element, the dims and the dense byte size.
struct DenseShape {
  uint64_t element_bytes = 0;
  std::vector<int64_t> dims;
  uint64_t bytes = 0;
};

// Checks the element type (one we transfer), the dims and the byte size in
// that order; the first error found carries `context`.
StatusOr<DenseShape> denseShape(int type, const int64_t* dims, size_t numDims,
                                const std::string& context);

// Row-major (major to minor) byte strides of a dense array.
std::vector<int64_t> denseByteStrides(std::span<const int64_t> dims,
                                      uint64_t elementBytes);

// True when `byteStrides` address a dense major-to-minor array (strides over
// dimensions of extent 1 never move, so any value is accepted there).
bool stridesAreDense(std::span<const int64_t> dims, std::span<const int64_t> byteStrides,
                     uint64_t elementBytes);

// True when `layout` is null or describes the dense major-to-minor layout.
bool isDefaultLayout(const PJRT_Buffer_MemoryLayout* layout,
                     std::span<const int64_t> dims, uint64_t elementBytes);

// Copies the array at `src` (addressed with `byteStrides`, which may be negative
// or zero) into `dst` densely, major to minor.
void packStrided(const void* src, std::span<const int64_t> dims,
                 std::span<const int64_t> byteStrides, uint64_t elementBytes, void* dst);

}  // namespace jft::pjrt
