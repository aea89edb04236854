// Index arithmetic on a kernel's tile, and the index spaces values are
// evaluated on.
//
// A kernel works on one tile of rank 1 or 2 (its extents powers of two).
// Every tensor the emitters make has the tile's rank, each dim either the
// tile's extent or 1: a value that does not vary along a tile axis keeps a
// size-1 dim there ([BR, 1] for something computed per row), and operands are
// broadcast to the joint shape only where they meet. That keeps per-row work
// per row and lets Triton see contiguity along the axis a make_range runs.
//
// An IndexSpace says which element of an IR value each lane of the tile
// holds: a multi-index (one component per dim) and/or the row-major linear
// index, each derived from the other on demand (a reshape of a linear index
// is free; a component of one is a div/rem by constants). Its masks say
// which lanes are in range: `bounds` guard the tile's edges (one per tile
// axis, and they may be dropped for a load whose address does not vary along
// that axis: such an address is also that of an in-range lane), `valid`
// carries what a pad/concatenate window decides (never dropped).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "codegen/ttir/ttir_writer.h"
#include "support/int_lists.h"

namespace jft::codegen::ttir {

struct IndexSpace {
  std::vector<int64_t> dims;                // shape of the IR value indexed
  std::vector<std::optional<Value>> comps;  // per dim, index type
  std::optional<Value> linear;              // row-major, index type
  std::vector<Value> bounds;                // i1, each varying along one tile axis
  std::optional<Value> valid;               // i1
};

class IndexBuilder {
 public:
  // `tile`: the tile's extents; `index_type`: "i32" or "i64".
  IndexBuilder(TtirWriter& writer, std::vector<int64_t> tile, std::string index_type);

  TtirWriter& writer() { return writer_; }
  const std::vector<int64_t>& tile() const { return tile_; }
  const std::string& indexType() const { return index_type_; }
  std::vector<int64_t> ones() const { return std::vector<int64_t>(tile_.size(), 1); }

  // Tensors of the tile's rank.
  Value constant(int64_t v, const std::vector<int64_t>& shape, const std::string& scalar);
  Value indexConstant(int64_t v, const std::vector<int64_t>& shape) {
    return constant(v, shape, index_type_);
  }
  Value broadcast(const Value& v, const std::vector<int64_t>& shape);
  static std::vector<int64_t> join(const std::vector<int64_t>& a,
                                   const std::vector<int64_t>& b);
  // `op` is an arith op taking two operands of one type ("arith.addi").
  Value binary(const std::string& op, const Value& a, const Value& b);
  Value add(const Value& a, const Value& b) { return binary("arith.addi", a, b); }
  Value addConst(const Value& a, int64_t c);
  Value mulConst(const Value& a, int64_t c);
  Value divConst(const Value& a, int64_t c);  // a >= 0
  Value remConst(const Value& a, int64_t c);  // a >= 0
  // arith.cmpi with predicate `pred` ("slt", "sge", ...); the result is i1.
  Value compare(const std::string& pred, const Value& a, const Value& b);
  Value compareConst(const std::string& pred, const Value& a, int64_t c);
  Value both(const Value& a, const Value& b);  // i1 and
  Value select(const Value& cond, const Value& a, const Value& b);
  // Integer tensor `v` to the index type (sign- or zero-extended, or truncated).
  Value toIndex(const Value& v, bool is_unsigned);
  // Integer tensor `v` of `element` clamped to [0, hi] in its own type (so a
  // wide index is clamped before any truncation), then to the index type.
  Value clampToIndex(const Value& v, ir::ElementType element, int64_t hi);

  // The tile's lane positions along `axis`: 0..tile[axis]-1, index type.
  Value range(int axis);
  // Scalars (index type): tt.get_program_id x, constants, arithmetic.
  Value programId();
  Value scalarConstant(int64_t v);
  Value scalarBinary(const std::string& op, const Value& a, const Value& b);
  Value splat(const Value& scalar, const std::vector<int64_t>& shape);

  // Spaces: interned by what defines them, so equal spaces share an id (and
  // the values memoised on it).
  int intern(IndexSpace space);
  const IndexSpace& space(int id) const { return spaces_.at(id); }
  Value component(int id, size_t dim);
  Value linear(int id);
  // The conjunction of the masks a load or store at `address_shape` needs
  // (see the file comment), or nothing when every lane is in range.
  std::optional<Value> accessMask(int id, const std::vector<int64_t>& address_shape);
  // All masks of the space (bounds and valid), for stores and reductions.
  std::optional<Value> fullMask(int id);

  // Everything memoised, to be restored after an scf.for body whose values
  // do not dominate what follows.
  struct State {
    std::vector<IndexSpace> spaces;
    std::map<std::string, int> by_key;
    std::map<std::string, Value> constants;
  };
  State save() const { return {spaces_, by_key_, constants_}; }
  void restore(State s);

 private:
  TtirWriter& writer_;
  std::vector<int64_t> tile_;
  std::string index_type_;
  std::vector<IndexSpace> spaces_;
  std::map<std::string, int> by_key_;
  std::map<std::string, Value> constants_;
};

// Row-major strides of `dims`.
std::vector<int64_t> rowMajorStrides(const std::vector<int64_t>& dims);

}  // namespace jft::codegen::ttir
