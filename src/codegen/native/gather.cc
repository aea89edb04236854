// stablehlo.gather in the elemental emitter: the output index split into
// batch and offset dims, the start indices read at the batch position and
// clamped so every slice lies inside the operand (as StableHLO specifies),
// batching dims carried through, the offsets added.
#include <algorithm>

#include "codegen/native/elemental.h"
#include "support/int_lists.h"

namespace jft::codegen::native {
namespace {

bool inRange(const std::vector<int64_t>& list, size_t size) {
  for (int64_t v : list)
    if (v < 0 || static_cast<size_t>(v) >= size) return false;
  return true;
}

}  // namespace

StatusOr<std::string> Elemental::emitGather(const ir::Op& op, const Index& index) {
  const auto* dn =
      ir::findAttrAs<ir::GatherDimensionNumbers>(op.attrs, "dimension_numbers");
  if (!dn || op.operands.size() != 2)
    return unimplemented(opName(op) + " without dimension_numbers");
  const std::vector<int64_t>& operand = module_.typeOf(op.operands[0]).dims;
  const ir::Type& indices_type = module_.typeOf(op.operands[1]);
  const std::vector<int64_t>& indices = indices_type.dims;
  const std::vector<int64_t> sizes = intsAttr(op, "slice_sizes");
  const size_t out_rank = index.dims.size();
  const int64_t ivd = dn->index_vector_dim;
  if (!ir::isInteger(indices_type.element))
    return unimplemented(opName(op) + " with indices of type " + indices_type.str());
  if (sizes.size() != operand.size() || !inRange(dn->offset_dims, out_rank) ||
      !inRange(dn->collapsed_slice_dims, operand.size()) ||
      !inRange(dn->operand_batching_dims, operand.size()) ||
      !inRange(dn->start_index_map, operand.size()) ||
      dn->operand_batching_dims.size() != dn->start_indices_batching_dims.size() ||
      ivd < 0 || ivd > static_cast<int64_t>(indices.size()))
    return unimplemented(opName(op) + ": bad dimension numbers or slice_sizes");

  // The output's batch dims (not offset dims), in order: batch index i is
  // indices dim i, or i + 1 from the index vector dim on.
  std::vector<std::string> batch;
  for (size_t d = 0; d < out_rank; ++d)
    if (!contains(dn->offset_dims, static_cast<int64_t>(d)))
      batch.push_back(index.comps[d]);
  auto indicesDim = [&](size_t i) { return static_cast<int64_t>(i) < ivd ? i : i + 1; };
  if (batch.size() + (ivd < static_cast<int64_t>(indices.size()) ? 1 : 0) !=
      indices.size())
    return unimplemented(opName(op) + ": batch dims do not match the indices");

  std::vector<std::string> comps(operand.size());
  for (size_t k = 0; k < dn->start_index_map.size(); ++k) {
    Index at;
    at.dims = indices;
    at.comps.assign(indices.size(), "0");
    for (size_t i = 0; i < batch.size(); ++i)
      if (indices[indicesDim(i)] != 1) at.comps[indicesDim(i)] = batch[i];
    if (ivd < static_cast<int64_t>(indices.size()))
      at.comps[static_cast<size_t>(ivd)] = num(k);
    JFT_ASSIGN_OR_RETURN(std::string start, emit(op.operands[1], at));
    const auto d = static_cast<size_t>(dn->start_index_map[k]);
    comps[d] = clampStart(start, indices_type.element,
                          std::max<int64_t>(operand[d] - sizes[d], 0));
  }
  // Batching dims: operand dim operand_batching_dims[i] follows indices dim
  // start_indices_batching_dims[i], that is one batch index of the output.
  for (size_t i = 0; i < dn->operand_batching_dims.size(); ++i) {
    const int64_t j = dn->start_indices_batching_dims[i];
    if (j < 0 || j == ivd) return unimplemented(opName(op) + ": bad batching dims");
    const auto b = static_cast<size_t>(j < ivd ? j : j - 1);
    if (b >= batch.size()) return unimplemented(opName(op) + ": bad batching dims");
    comps[static_cast<size_t>(dn->operand_batching_dims[i])] = batch[b];
  }
  // Offset dims: the operand dims neither collapsed nor batching, in order.
  size_t next_offset = 0;
  for (size_t d = 0; d < operand.size(); ++d) {
    const auto di = static_cast<int64_t>(d);
    if (contains(dn->collapsed_slice_dims, di) || contains(dn->operand_batching_dims, di))
      continue;
    if (next_offset >= dn->offset_dims.size())
      return unimplemented(opName(op) + ": fewer offset dims than slice dims");
    const std::string& off =
        index.comps[static_cast<size_t>(dn->offset_dims[next_offset++])];
    comps[d] = comps[d].empty() ? off : ix(comps[d] + " + " + off);
  }
  Index sub;
  sub.dims = operand;
  for (size_t d = 0; d < operand.size(); ++d)
    sub.comps.push_back(comps[d].empty() || operand[d] == 1 ? "0" : comps[d]);
  return emit(op.operands[0], sub);
}

}  // namespace jft::codegen::native
