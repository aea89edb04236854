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

// The order in memory a layout describes, as minor-to-major dims: empty for
// null, for the dense row-major order and for arrays with no elements. A
// tiled layout without tiles names its order; byte strides must address a
// dense array in some order of the dims (extent-1 dims may stride anyhow).
// Tiles and gapped or overlapping strides are UNIMPLEMENTED, carrying
// `context`.
StatusOr<std::vector<int64_t>> layoutOrder(const PJRT_Buffer_MemoryLayout* layout,
                                           std::span<const int64_t> dims,
                                           uint64_t elementBytes,
                                           const std::string& context);

// `minorToMajor`, or empty when it is the row-major order (rank-1 ... 0).
std::vector<int64_t> canonicalOrder(std::span<const int64_t> minorToMajor);
// True when two orders are the same, empty meaning row-major in either;
// allocates nothing (Execute asks it for every argument).
bool sameOrder(std::span<const int64_t> a, std::span<const int64_t> b);
// True when `order` lists each of `rank` dims once.
bool isPermutation(std::span<const int64_t> order, size_t rank);

// "{1,0}": an order as XLA writes a layout ("{}" for rank 0); the row-major
// order of `rank` dims when `minorToMajor` is empty.
std::string layoutText(std::span<const int64_t> minorToMajor, size_t rank);

// Byte strides, per dim, of a dense array stored in `minorToMajor` order
// (empty: row-major).
std::vector<int64_t> orderedByteStrides(std::span<const int64_t> dims,
                                        std::span<const int64_t> minorToMajor,
                                        uint64_t elementBytes);

// Repacks a dense array from one order of its dims to another (either
// empty: row-major).
void repackOrder(const void* src, std::span<const int64_t> dims,
                 std::span<const int64_t> from, std::span<const int64_t> to,
                 uint64_t elementBytes, void* dst);

// Copies the array at `src` (addressed with `byteStrides`, which may be negative
// or zero) into `dst` densely, major to minor.
void packStrided(const void* src, std::span<const int64_t> dims,
                 std::span<const int64_t> byteStrides, uint64_t elementBytes, void* dst);

}  // namespace jft::pjrt
