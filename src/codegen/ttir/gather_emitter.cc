#include "codegen/ttir/gather_emitter.h"

#include <algorithm>

#include "support/int_lists.h"

namespace jft::codegen::ttir {

namespace {

// A space over `dims` with components `comps` and the masks of `from` (a
// lane outside the tile stays outside whatever it reads).
int deriveSpace(IndexBuilder& ix, int from, std::vector<int64_t> dims,
                std::vector<Value> comps) {
  IndexSpace s;
  s.dims = std::move(dims);
  for (Value& c : comps) s.comps.emplace_back(std::move(c));
  s.bounds = ix.space(from).bounds;
  s.valid = ix.space(from).valid;
  return ix.intern(std::move(s));
}

}  // namespace

StatusOr<Value> emitGather(Elemental& elemental, const ir::Op& op, int space) {
  IndexBuilder& ix = elemental.index();
  const ir::Module& module = elemental.module();
  const auto* dn =
      ir::findAttrAs<ir::GatherDimensionNumbers>(op.attrs, "dimension_numbers");
  if (!dn || op.operands.size() != 2)
    return unimplemented("stablehlo.gather without dimension_numbers");
  const std::vector<int64_t>& operand = dimsOf(module, op.operands[0]);
  const ir::Type& indices_type = module.typeOf(op.operands[1]);
  const std::vector<int64_t>& indices = indices_type.dims;
  const std::vector<int64_t> sizes = intsAttr(op, "slice_sizes");
  const int64_t out_rank = static_cast<int64_t>(ix.space(space).dims.size());
  const int64_t ivd = dn->index_vector_dim;
  if (!ir::isInteger(indices_type.element))
    return unimplemented("stablehlo.gather with indices of type " + indices_type.str());
  if (sizes.size() != operand.size())
    return unimplemented("stablehlo.gather: bad slice_sizes");

  // The output's batch dims (not offset dims), in order: batch index i is
  // indices dim i, or i + 1 from the index vector dim on.
  std::vector<Value> batch;
  for (int64_t d = 0; d < out_rank; ++d)
    if (!contains(dn->offset_dims, d)) batch.push_back(ix.component(space, d));
  auto indicesDimOfBatch = [&](size_t i) {
    const int64_t j = static_cast<int64_t>(i);
    return j < ivd ? j : j + 1;
  };

  std::vector<std::optional<Value>> comps(operand.size());
  // Start indices: component k of the index vector at this lane's batch row.
  for (size_t k = 0; k < dn->start_index_map.size(); ++k) {
    std::vector<Value> icomps(indices.size());
    for (size_t i = 0; i < batch.size(); ++i)
      icomps[static_cast<size_t>(indicesDimOfBatch(i))] = batch[i];
    if (ivd < static_cast<int64_t>(indices.size()))
      icomps[static_cast<size_t>(ivd)] =
          ix.indexConstant(static_cast<int64_t>(k), ix.ones());
    const int ispace = indices.empty()
                           ? elemental.scalarSpace()
                           : deriveSpace(ix, space, indices, std::move(icomps));
    JFT_ASSIGN_OR_RETURN(Value start, elemental.emit(op.operands[1], ispace));
    const size_t d = static_cast<size_t>(dn->start_index_map[k]);
    comps.at(d) = ix.clampToIndex(start, indices_type.element, operand[d] - sizes[d]);
  }
  // Batching dims: operand dim operand_batching_dims[i] follows indices dim
  // start_indices_batching_dims[i], i.e. that batch index of the output.
  for (size_t i = 0; i < dn->operand_batching_dims.size(); ++i) {
    const int64_t j = dn->start_indices_batching_dims.at(i);
    const size_t b = static_cast<size_t>(j < ivd ? j : j - 1);
    comps.at(static_cast<size_t>(dn->operand_batching_dims[i])) = batch.at(b);
  }
  // Offset dims: the operand dims neither collapsed nor batching, in order.
  size_t next_offset = 0;
  for (size_t d = 0; d < operand.size(); ++d) {
    const int64_t di = static_cast<int64_t>(d);
    if (contains(dn->collapsed_slice_dims, di) || contains(dn->operand_batching_dims, di))
      continue;
    const Value off =
        ix.component(space, static_cast<size_t>(dn->offset_dims.at(next_offset++)));
    comps[d] = comps[d] ? ix.add(*comps[d], off) : off;
  }
  std::vector<Value> operand_comps;
  for (size_t d = 0; d < operand.size(); ++d)
    operand_comps.push_back(comps[d] ? *comps[d] : ix.indexConstant(0, ix.ones()));
  if (operand.empty()) return elemental.emit(op.operands[0], elemental.scalarSpace());
  return elemental.emit(op.operands[0],
                        deriveSpace(ix, space, operand, std::move(operand_comps)));
}

}  // namespace jft::codegen::ttir
