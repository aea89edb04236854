// MLIR's dense element storage decoded into ir's form.
//
// MLIR (DenseIntOrFPElementsAttr, and VHLO's tensor_v1 which carries it)
// keeps elements little endian, each in a whole number of bytes, and a
// splat as a single element; i1 takes one byte per element in memory. The
// bytecode packs i1 eight to a byte (least significant bit first, an
// all-true splat as one 0xFF byte); the bytecode reader unpacks that into
// the in-memory form, which is what the tree holds. A buffer still packed is
// accepted where it cannot be mistaken for the in-memory form (more than 8
// elements). ir keeps a splat as its one element (ir::DenseElements::splat)
// and spells every other literal out: one byte 0/1 per PRED, storageBytes()
// bytes for everything else.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "frontend/mlir_tree.h"
#include "frontend/vhlo/diag.h"
#include "ir/attribute.h"
#include "support/status.h"

namespace jft::frontend::vhlo {

// A literal spelled out larger than this is refused (a splat is never
// spelled out, so any representable size of splat is accepted).
inline constexpr int64_t kMaxDenseBytes = int64_t{1} << 31;

// Non-i1 storage: `raw` holds all elements or one (a splat).
StatusOr<std::vector<uint8_t>> expandStorage(std::span<const uint8_t> raw,
                                             int64_t num_elements, int64_t element_bytes,
                                             const OpSite& site);

// i1 storage (byte per element, a one-byte splat, or bit-packed) to bytes 0/1.
StatusOr<std::vector<uint8_t>> expandBoolStorage(std::span<const uint8_t> raw,
                                                 int64_t num_elements,
                                                 const OpSite& site);

// A DenseElements tree attribute (constant values, replica groups, padding).
// A splat stays one element; other storage must hold every element.
StatusOr<ir::DenseElements> decodeDense(const MAttr& attr, const OpSite& site);

// Integer or index elements of a DenseElements or DenseArray attribute, in
// row-major order (dimension lists, layouts).
StatusOr<std::vector<int64_t>> decodeInts(const MAttr& attr, const OpSite& site);

// i1 elements of a DenseElements or DenseArray attribute (window_reversal).
StatusOr<std::vector<bool>> decodeBools(const MAttr& attr, const OpSite& site);

}  // namespace jft::frontend::vhlo
