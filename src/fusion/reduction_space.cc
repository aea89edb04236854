#include "fusion/reduction_space.h"

#include <algorithm>

#include "fusion/ttir_support.h"
#include "support/int_lists.h"

namespace jft::fusion {
namespace {

std::vector<int64_t> nonUnit(const std::vector<int64_t>& dims) {
  std::vector<int64_t> out;
  for (int64_t d : dims)
    if (d != 1) out.push_back(d);
  return out;
}

const std::vector<int64_t>* broadcastDims(const ir::Op& op) {
  return ir::findAttrAs<std::vector<int64_t>>(op.attrs, "broadcast_dimensions");
}

// A broadcast_in_dim whose non-unit operand dims land, in order, on result
// dims of the same size for which `allowed` holds.
template <typename Allowed>
bool mapsNonUnitDimsInOrder(const ir::Op& op, const std::vector<int64_t>& in,
                            const std::vector<int64_t>& out, Allowed allowed) {
  const std::vector<int64_t>* map = broadcastDims(op);
  if (!map || map->size() != in.size()) return false;
  int64_t last = -1;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] == 1) continue;
    const int64_t to = (*map)[i];
    if (to <= last || to < 0 || to >= static_cast<int64_t>(out.size())) return false;
    if (out[to] != in[i] || !allowed(to)) return false;
    last = to;
  }
  return true;
}

bool isIdentityBroadcast(const ir::Op& op, const std::vector<int64_t>& in,
                         const std::vector<int64_t>& out) {
  const std::vector<int64_t>* map = broadcastDims(op);
  if (in != out || !map || map->size() != in.size()) return false;
  for (size_t i = 0; i < map->size(); ++i)
    if ((*map)[i] != static_cast<int64_t>(i)) return false;
  return true;
}

}  // namespace

std::vector<int64_t> ReductionSpace::kept() const {
  std::vector<int64_t> out;
  for (size_t i = 0; i < full.size(); ++i)
    if (!std::binary_search(reduced.begin(), reduced.end(), static_cast<int64_t>(i)))
      out.push_back(full[i]);
  return out;
}

int64_t ReductionSpace::rowElements() const {
  return product(full, reduced);
}

bool ReductionSpace::isKept(const std::vector<int64_t>& dims) const {
  return nonUnit(dims) == nonUnit(kept());
}

std::optional<ReductionSpace> reductionSpaceOf(const ir::Module& module,
                                               const ir::Op& op) {
  if (op.kind != ir::OpKind::Reduce || op.operands.empty()) return std::nullopt;
  const auto* dims = ir::findAttrAs<std::vector<int64_t>>(op.attrs, "dimensions");
  const ir::Type& in = module.typeOf(op.operands[0]);
  if (!dims || !in.isTensor()) return std::nullopt;
  ReductionSpace space{in.dims, *dims};
  std::sort(space.reduced.begin(), space.reduced.end());
  for (int64_t d : space.reduced)
    if (d < 0 || d >= in.rank()) return std::nullopt;
  if (std::adjacent_find(space.reduced.begin(), space.reduced.end()) !=
      space.reduced.end())
    return std::nullopt;
  return space;
}

bool fitsReductionSpace(const ir::Module& module, const ReductionSpace& space,
                        const ir::Op& op) {
  if (op.kind == ir::OpKind::Reduce) return reductionSpaceOf(module, op) == space;
  for (ir::ValueId id : op.results) {
    const ir::Type& type = module.typeOf(id);
    if (!type.isTensor() || !(space.isFull(type.dims) || space.isKept(type.dims)))
      return false;
  }
  return true;
}

bool reductionEdgeOk(const ir::Module& module, const ReductionSpace& space,
                     ir::ValueId value, const ir::Op& user, int64_t max_row_elements) {
  const std::vector<int64_t>& in = module.typeOf(value).dims;
  if (user.kind == ir::OpKind::Reduce) {
    // Only as a reduced operand (not an init value) of a reduce of this space.
    const size_t n = user.results.size();
    for (size_t i = n; i < user.operands.size(); ++i)
      if (user.operands[i] == value) return false;
    return reductionSpaceOf(module, user) == space && space.isFull(in);
  }
  if (user.results.size() != 1) return false;
  const std::vector<int64_t>& out = module.typeOf(user.results[0]).dims;
  if (isTtirElementwise(user.kind)) return in == out;
  if (user.kind == ir::OpKind::Reshape)
    return in == out || (space.isKept(in) && space.isKept(out));
  if (user.kind != ir::OpKind::BroadcastInDim) return false;
  if (isIdentityBroadcast(user, in, out)) return true;
  if (!space.isKept(in)) return false;
  // Both hold K's non-unit dims, so this only adds or drops unit dims when
  // the non-unit dims keep their order.
  if (space.isKept(out))
    return mapsNonUnitDimsInOrder(user, in, out, [](int64_t) { return true; });
  if (!space.isFull(out) || space.rowElements() > max_row_elements) return false;
  auto isKeptDim = [&](int64_t d) {
    return !std::binary_search(space.reduced.begin(), space.reduced.end(), d);
  };
  return nonUnit(in).size() == nonUnit(space.kept()).size() &&
         mapsNonUnitDimsInOrder(user, in, out, isKeptDim);
}

}  // namespace jft::fusion
