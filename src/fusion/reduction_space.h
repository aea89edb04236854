// The index space of a reduction group: the full shape F that its reduce ops
// read, the reduced dims D, and the kept shape K (F without D). Values of the
// group are indexed by F or by K; a value "has shape K" when its non-unit dims
// are K's non-unit dims in order (JAX keeps reduced dims as 1s: 32x1 for 32).
//
// Inside a group a value may only flow where both ends share an index:
// elementwise ops on equal shapes, reshapes and broadcasts that only add or
// drop unit dims of K, reduce ops of the same space (F -> K), and, when a row
// fits a tile, broadcasts that take K back to F along the kept dims.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/module.h"

namespace jft::fusion {

struct ReductionSpace {
  std::vector<int64_t> full;     // F
  std::vector<int64_t> reduced;  // D, ascending
  friend bool operator==(const ReductionSpace&, const ReductionSpace&) = default;

  std::vector<int64_t> kept() const;  // K
  int64_t rowElements() const;        // prod(F[D])
  bool isFull(const std::vector<int64_t>& dims) const { return dims == full; }
  bool isKept(const std::vector<int64_t>& dims) const;
};

// The space of a reduce op; nullopt for other ops or malformed attributes.
std::optional<ReductionSpace> reductionSpaceOf(const ir::Module& module,
                                               const ir::Op& op);

// Whether `op` may sit in a group of `space`: a reduce of that very space, or
// an op whose every result has shape F or K.
bool fitsReductionSpace(const ir::Module& module, const ReductionSpace& space,
                        const ir::Op& op);

// Whether `value`, computed inside a group of `space`, may be read by `user`
// in the same group. `max_row_elements` bounds broadcasts from K back to F.
bool reductionEdgeOk(const ir::Module& module, const ReductionSpace& space,
                     ir::ValueId value, const ir::Op& user, int64_t max_row_elements);

}  // namespace jft::fusion
