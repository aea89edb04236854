#include "passes/approx_top_k.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/custom_call.h"
#include "passes/clone_region.h"
#include "passes/op_emitter.h"
#include "passes/unused_functions.h"

namespace jft::passes {
namespace {

constexpr std::string_view kTarget = "ApproxTopK";

// From the call's attribute dictionary, which JAX writes as for an FFI call.
std::optional<int64_t> reductionDim(const ir::Op& op) {
  const ir::NamedAttrs none;
  const ir::NamedAttrs* config = ir::typedFfiConfig(op, none);
  const ir::Attribute* dim = config ? ir::findAttr(*config, "reduction_dim") : nullptr;
  if (dim == nullptr) return std::nullopt;
  if (dim->is<int64_t>()) return dim->as<int64_t>();
  // FFI dictionaries keep integers as rank-0 tensors of their type.
  if (dim->is<ir::DenseElements>())
    return ir::scalarInteger(dim->as<ir::DenseElements>());
  return std::nullopt;
}

struct TopK {
  size_t inputs = 0;
  int64_t dim = 0;
  const ir::Function* comparator = nullptr;
};

Status checkComparator(const ir::Module& module, const ir::Op& op, const TopK& k) {
  const ir::Function& f = *k.comparator;
  if (f.body.args.size() != 2 * k.inputs)
    return customCallError(module, op,
                           "comparator @" + f.name + " takes " +
                               std::to_string(f.body.args.size()) +
                               " arguments, expected " + std::to_string(2 * k.inputs) +
                               " (lhs and rhs of each input)");
  for (size_t i = 0; i < f.body.args.size(); ++i) {
    const ir::Type want = ir::Type::tensor(module.typeOf(op.operands[i / 2]).element, {});
    if (module.typeOf(f.body.args[i]) != want)
      return customCallError(module, op,
                             "comparator @" + f.name + " argument " + std::to_string(i) +
                                 " is " + module.typeOf(f.body.args[i]).str() +
                                 ", expected " + want.str());
  }
  if (f.result_types.size() != 1 ||
      f.result_types[0] != ir::Type::tensor(ir::ElementType::PRED, {}))
    return customCallError(module, op,
                           "comparator @" + f.name + " must return one tensor<i1>");
  return Status::ok();
}

StatusOr<TopK> checkTopK(const ir::Module& module, const ir::Op& op) {
  TopK k;
  k.inputs = op.results.size();
  if (k.inputs == 0 || op.operands.size() != 2 * k.inputs)
    return customCallError(module, op,
                           "expected n inputs, n init values and n results, got " +
                               std::to_string(op.operands.size()) + " operands and " +
                               std::to_string(op.results.size()) + " results");
  const ir::Type& first = module.typeOf(op.operands[0]);
  const std::optional<int64_t> dim = reductionDim(op);
  if (!dim || *dim < 0 || *dim >= first.rank())
    return customCallError(
        module, op,
        "the configuration needs an integer `reduction_dim` within the rank of " +
            first.str());
  k.dim = *dim;
  for (size_t i = 0; i < k.inputs; ++i) {
    const ir::Type& input = module.typeOf(op.operands[i]);
    const ir::Type& init = module.typeOf(op.operands[k.inputs + i]);
    const ir::Type& result = module.typeOf(op.results[i]);
    if (!input.isTensor() || input.dims != first.dims)
      return customCallError(module, op,
                             "input " + std::to_string(i) + " is " + input.str() +
                                 ", expected the shape of " + first.str());
    if (init != ir::Type::tensor(input.element, {}))
      return customCallError(module, op,
                             "init value " + std::to_string(i) + " is " + init.str() +
                                 ", expected a scalar of its input's type");
    std::vector<int64_t> cut = input.dims;
    const size_t d = static_cast<size_t>(k.dim);
    cut[d] = result.isTensor() && result.rank() == input.rank() ? result.dims[d] : -1;
    if (result != ir::Type::tensor(input.element, cut) || cut[d] < 0 ||
        cut[d] > input.dims[d])
      return customCallError(module, op,
                             "result " + std::to_string(i) + " is " + result.str() +
                                 ", expected input " + input.str() + " with dimension " +
                                 std::to_string(k.dim) + " cut to the output size");
  }
  const auto* called = ir::findAttrAs<ir::AttrList>(op.attrs, "called_computations");
  if (called == nullptr || called->size() != 1 || !(*called)[0].is<ir::SymbolRef>())
    return customCallError(module, op, "expected one called computation, the comparator");
  const std::string& name = (*called)[0].as<ir::SymbolRef>().name;
  k.comparator = module.findFunction(name);
  if (k.comparator == nullptr)
    return customCallError(module, op, "the comparator @" + name + " does not exist");
  JFT_RETURN_IF_ERROR(checkComparator(module, op, k));
  return k;
}

// The comparator's body over fresh arguments, its return now the sort's.
ir::Region comparatorRegion(ir::Module& module, const ir::Function& f) {
  ir::Region region;
  ValueRenaming renaming;
  for (ValueId arg : f.body.args) {
    const ValueId fresh = module.newValue(module.typeOf(arg));
    renaming[arg] = fresh;
    region.args.push_back(fresh);
  }
  region.ops = cloneOps(module, f.body, renaming);
  return region;
}

void expandTopK(ir::Module& module, const ir::Op& op, const TopK& k,
                std::vector<ir::Op>& out) {
  OpEmitter e(module, op, out);
  const std::vector<ValueId> inputs(op.operands.begin(),
                                    op.operands.begin() + static_cast<long>(k.inputs));
  ir::Op sort = e.make(OpKind::Sort, inputs, module.typeOf(inputs[0]),
                       {{"dimension", k.dim}, {"is_stable", true}});
  // A result as long as its input is the sorted input itself.
  sort.results.clear();
  for (size_t i = 0; i < k.inputs; ++i)
    sort.results.push_back(module.typeOf(op.results[i]) == module.typeOf(inputs[i])
                               ? op.results[i]
                               : module.newValue(module.typeOf(inputs[i])));
  sort.regions.push_back(comparatorRegion(module, *k.comparator));
  const std::vector<ValueId> sorted = sort.results;
  out.push_back(std::move(sort));
  for (size_t i = 0; i < k.inputs; ++i) {
    if (sorted[i] == op.results[i]) continue;
    const std::vector<int64_t>& dims = module.typeOf(op.results[i]).dims;
    e.giveId(e.slice(sorted[i], std::vector<int64_t>(dims.size(), 0), dims),
             op.results[i]);
  }
}

}  // namespace

StatusOr<bool> expandApproxTopK(ir::Module& module) {
  JFT_ASSIGN_OR_RETURN(
      bool changed,
      rewriteCustomCalls(module, kTarget,
                         [&](const ir::Op& op, std::vector<ir::Op>& out) -> Status {
                           JFT_ASSIGN_OR_RETURN(TopK k, checkTopK(module, op));
                           expandTopK(module, op, k, out);
                           return Status::ok();
                         }));
  if (changed) removeUnusedFunctions(module);
  return changed;
}

}  // namespace jft::passes
