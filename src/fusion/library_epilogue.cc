#include "fusion/library_epilogue.h"

#include <algorithm>
#include <set>

namespace jft::fusion {
namespace {

using ir::OpKind;

class Matcher {
 public:
  Matcher(const ir::Module& module, const ir::Region& region,
          const std::vector<size_t>& ops)
      : module_(module), region_(region), ops_(ops.begin(), ops.end()) {}

  std::optional<LibraryEpilogue> match() {
    std::optional<size_t> dot;
    for (size_t i : ops_) {
      if (i >= region_.ops.size()) return std::nullopt;
      if (region_.ops[i].kind != OpKind::DotGeneral) continue;
      if (dot) return std::nullopt;
      dot = i;
    }
    if (!dot || region_.ops[*dot].results.size() != 1) return std::nullopt;
    LibraryEpilogue out;
    out.dot = *dot;
    used_.insert(*dot);
    ir::ValueId value = region_.ops[*dot].results[0];
    const ir::Type& type = module_.typeOf(value);
    if (!type.isTensor()) return std::nullopt;
    element_ = type.element;
    if (element_ != ir::ElementType::F32 && element_ != ir::ElementType::BF16 &&
        element_ != ir::ElementType::F16)
      return std::nullopt;

    std::optional<size_t> next = soleReader(value);
    if (next && region_.ops[*next].kind == OpKind::Add) {
      std::optional<ir::ValueId> bias = biasOf(region_.ops[*dot], *next, value, out);
      if (!bias) return std::nullopt;
      out.bias = bias;
      used_.insert(*next);
      value = region_.ops[*next].results[0];
      next = soleReader(value);
    }
    if (next && region_.ops[*next].kind == OpKind::Maximum) {
      const ir::Op& max = region_.ops[*next];
      if (max.operands.size() != 2 || max.results.size() != 1) return std::nullopt;
      const ir::ValueId other =
          max.operands[0] == value ? max.operands[1] : max.operands[0];
      if (other == value || !isZero(other)) return std::nullopt;
      out.relu = true;
      used_.insert(*next);
      value = max.results[0];
    }
    if (!out.bias && !out.relu) return std::nullopt;
    for (size_t i : ops_)
      if (used_.count(i) == 0) return std::nullopt;
    out.output = value;
    return out;
  }

 private:
  // The one op of the set reading `value` (no reader outside it, not
  // returned), or nothing.
  std::optional<size_t> soleReader(ir::ValueId value) const {
    std::optional<size_t> reader;
    for (size_t i = 0; i < region_.ops.size(); ++i) {
      const ir::Op& op = region_.ops[i];
      if (std::find(op.operands.begin(), op.operands.end(), value) == op.operands.end())
        continue;
      if (reader || op.kind == OpKind::Return || ops_.count(i) == 0) return std::nullopt;
      reader = i;
    }
    return reader;
  }

  std::optional<size_t> definingOp(ir::ValueId value) const {
    for (size_t i = 0; i < region_.ops.size(); ++i) {
      const auto& results = region_.ops[i].results;
      if (std::find(results.begin(), results.end(), value) != results.end()) return i;
    }
    return std::nullopt;
  }

  // A constant of +0 in every element, or a broadcast_in_dim of one; the ops
  // of the set that make it are used.
  bool isZero(ir::ValueId value) {
    std::optional<size_t> def = definingOp(value);
    if (!def || module_.typeOf(value).element != element_) return false;
    const ir::Op* op = &region_.ops[*def];
    std::vector<size_t> chain{*def};
    if (op->kind == OpKind::BroadcastInDim && op->operands.size() == 1) {
      def = definingOp(op->operands[0]);
      if (!def) return false;
      op = &region_.ops[*def];
      chain.push_back(*def);
    }
    if (op->kind != OpKind::Constant) return false;
    const auto* dense = ir::findAttrAs<ir::DenseElements>(op->attrs, "value");
    if (dense == nullptr || dense->bytes.empty() ||
        !std::all_of(dense->bytes.begin(), dense->bytes.end(),
                     [](uint8_t b) { return b == 0; }))
      return false;
    for (size_t i : chain)
      if (ops_.count(i) != 0) used_.insert(i);
    return true;
  }

  // The n-vector `add` adds to the dot's result `d` (f32 results only).
  std::optional<ir::ValueId> biasOf(const ir::Op& dot, size_t add_at, ir::ValueId d,
                                    LibraryEpilogue& out) {
    const ir::Op& add = region_.ops[add_at];
    if (element_ != ir::ElementType::F32 || add.operands.size() != 2 ||
        add.results.size() != 1)
      return std::nullopt;
    const ir::ValueId other = add.operands[0] == d ? add.operands[1] : add.operands[0];
    if (other == d) return std::nullopt;
    std::optional<size_t> def = definingOp(other);
    if (!def || ops_.count(*def) == 0) return std::nullopt;
    const ir::Op& broadcast = region_.ops[*def];
    if (broadcast.kind != OpKind::BroadcastInDim || broadcast.operands.size() != 1)
      return std::nullopt;
    const auto* dn =
        ir::findAttrAs<ir::DotDimensionNumbers>(dot.attrs, "dot_dimension_numbers");
    const auto* dims =
        ir::findAttrAs<std::vector<int64_t>>(broadcast.attrs, "broadcast_dimensions");
    if (dn == nullptr || dims == nullptr) return std::nullopt;
    const std::vector<int64_t>& result = module_.typeOf(d).dims;
    const size_t lhs_rank = module_.typeOf(dot.operands[0]).dims.size();
    const size_t free_start =
        lhs_rank - dn->lhs_contracting_dims.size();  // batch + lhs free dims
    if (free_start > result.size()) return std::nullopt;
    const ir::Type& vector = module_.typeOf(broadcast.operands[0]);
    if (!vector.isTensor() || vector.element != ir::ElementType::F32 ||
        vector.dims != std::vector<int64_t>(
                           result.begin() + static_cast<long>(free_start), result.end()))
      return std::nullopt;
    for (size_t j = 0; j < dims->size(); ++j)
      if ((*dims)[j] != static_cast<int64_t>(free_start + j)) return std::nullopt;
    if (dims->size() != vector.dims.size()) return std::nullopt;
    used_.insert(*def);
    out.bias_broadcast = *def;
    return broadcast.operands[0];
  }

  const ir::Module& module_;
  const ir::Region& region_;
  std::set<size_t> ops_;
  std::set<size_t> used_;
  ir::ElementType element_ = ir::ElementType::F32;
};

}  // namespace

std::optional<LibraryEpilogue> libraryEpilogueOf(const ir::Module& module,
                                                 const ir::Region& region,
                                                 const std::vector<size_t>& ops) {
  return Matcher(module, region, ops).match();
}

}  // namespace jft::fusion
