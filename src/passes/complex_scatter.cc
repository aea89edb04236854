#include "passes/complex_scatter.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "passes/op_emitter.h"

namespace jft::passes {
namespace {

bool listedDim(const std::vector<int64_t>& list, int64_t v) {
  return std::find(list.begin(), list.end(), v) != list.end();
}

// The combining op when the update computation is one binary op of
// (current, update) in either order and not add; null otherwise.
const ir::Op* combiningOp(const ir::Op& scatter) {
  if (scatter.regions.size() != 1) return nullptr;
  const ir::Region& body = scatter.regions[0];
  if (body.args.size() != 2 || body.ops.size() != 2) return nullptr;
  const ir::Op& op = body.ops[0];
  const ir::Op& ret = body.ops[1];
  if (ret.kind != OpKind::Return || ret.operands.size() != 1 || op.results.size() != 1 ||
      ret.operands[0] != op.results[0] || op.operands.size() != 2 ||
      op.kind == OpKind::Add || !op.regions.empty())
    return nullptr;
  const auto& in = op.operands;
  const auto& args = body.args;
  const bool both =
      (in[0] == args[0] && in[1] == args[1]) || (in[0] == args[1] && in[1] == args[0]);
  return both ? &op : nullptr;
}

bool updatesCannotCollide(const ir::Module& module, const ir::Op& scatter,
                          const ir::ScatterDimensionNumbers& dn) {
  if (const auto* unique = ir::findAttrAs<bool>(scatter.attrs, "unique_indices");
      unique && *unique)
    return true;
  const std::vector<int64_t>& indices = module.typeOf(scatter.operands[1]).dims;
  int64_t rows = 1;
  for (size_t d = 0; d < indices.size(); ++d)
    if (static_cast<int64_t>(d) != dn.index_vector_dim) rows *= indices[d];
  return rows == 1;
}

// The gather reading, for each update, the operand elements it combines with.
ir::NamedAttrs gatherAttrs(const ir::Module& module, const ir::Op& scatter,
                           const ir::ScatterDimensionNumbers& dn) {
  const std::vector<int64_t>& operand = module.typeOf(scatter.operands[0]).dims;
  const std::vector<int64_t>& updates = module.typeOf(scatter.operands[2]).dims;
  std::vector<int64_t> sizes(operand.size(), 1);
  size_t window = 0;
  for (size_t d = 0; d < operand.size(); ++d) {
    const int64_t di = static_cast<int64_t>(d);
    if (listedDim(dn.inserted_window_dims, di) || listedDim(dn.input_batching_dims, di))
      continue;
    sizes[d] = updates[static_cast<size_t>(dn.update_window_dims[window++])];
  }
  ir::GatherDimensionNumbers g;
  g.offset_dims = dn.update_window_dims;
  g.collapsed_slice_dims = dn.inserted_window_dims;
  g.operand_batching_dims = dn.input_batching_dims;
  g.start_indices_batching_dims = dn.scatter_indices_batching_dims;
  g.start_index_map = dn.scatter_dims_to_operand_dims;
  g.index_vector_dim = dn.index_vector_dim;
  ir::NamedAttrs attrs = {{"dimension_numbers", g}, {"slice_sizes", sizes}};
  if (const auto* sorted = ir::findAttrAs<bool>(scatter.attrs, "indices_are_sorted"))
    attrs.emplace_back("indices_are_sorted", *sorted);
  return attrs;
}

bool expandScatter(ir::Module& module, const ir::Op& scatter, std::vector<ir::Op>& out) {
  if (scatter.kind != OpKind::Scatter || scatter.operands.size() != 3 ||
      scatter.results.size() != 1 ||
      !ir::isComplex(module.typeOf(scatter.operands[0]).element))
    return false;
  const auto* dn = ir::findAttrAs<ir::ScatterDimensionNumbers>(
      scatter.attrs, "scatter_dimension_numbers");
  const ir::Op* combine = combiningOp(scatter);
  if (dn == nullptr || combine == nullptr || !updatesCannotCollide(module, scatter, *dn))
    return false;
  OpEmitter e(module, scatter, out);
  const ValueId operand = scatter.operands[0], indices = scatter.operands[1],
                updates = scatter.operands[2];
  const ir::Type& type = module.typeOf(updates);
  const ValueId current =
      e.emit(OpKind::Gather, {operand, indices}, type, gatherAttrs(module, scatter, *dn));
  const ir::Region& body = scatter.regions[0];
  const bool current_first = combine->operands[0] == body.args[0];
  const ValueId combined =
      e.emit(combine->kind,
             {current_first ? current : updates, current_first ? updates : current}, type,
             combine->attrs);
  // The same scatter, setting each element to its combined value.
  ir::Op set = e.make(OpKind::Scatter, {operand, indices, combined},
                      module.typeOf(scatter.results[0]), scatter.attrs);
  set.results[0] = scatter.results[0];
  ir::Region replace;
  const ir::Type scalar = ir::Type::tensor(type.element, {});
  replace.args = {module.newValue(scalar), module.newValue(scalar)};
  ir::Op ret = e.make(OpKind::Return, {replace.args[1]}, scalar);
  ret.results.clear();
  replace.ops.push_back(std::move(ret));
  set.regions.push_back(std::move(replace));
  out.push_back(std::move(set));
  return true;
}

}  // namespace

bool expandComplexScatters(ir::Module& module) {
  return rewriteOps(module, expandScatter);
}

}  // namespace jft::passes
