// Op classes the planner groups by and the forms the TTIR families run
// whole (see ttir_support.h).
#include "fusion/ttir_support.h"

#include "fusion/pallas_call.h"
#include "fusion/scan_form.h"
#include "ir/elementwise_spec.h"
#include "passes/literal_elements.h"

namespace jft::fusion {

using ir::OpKind;

// The spec's elementwise ops, every one of which the TTIR families compute.
bool isTtirElementwise(OpKind kind) {
  return ir::elementwiseSpec(kind).has_value();
}

bool isSplatConstant(const ir::Op& op) {
  if (op.kind != OpKind::Constant) return false;
  const auto* value = ir::findAttrAs<ir::DenseElements>(op.attrs, "value");
  return value && passes::isSplat(*value);
}

Family ttirFamilyOf(const ir::Module& module, const ir::Op& op) {
  switch (op.kind) {
    case OpKind::Reduce:
      return Family::kReduction;
    case OpKind::ReduceWindow:
    case OpKind::Composite:
      return scanFormOf(module, op) ? Family::kScan : Family::kLoop;
    case OpKind::Scatter:
      return Family::kScatter;
    case OpKind::Sort:
      return Family::kSort;
    case OpKind::DotGeneral:
      return Family::kMatmul;
    case OpKind::Convolution:
      return Family::kConv;
    case OpKind::CustomCall:
      return isPallasCall(op) ? Family::kPallas : Family::kLoop;
    default:
      return Family::kLoop;
  }
}

const ir::Op* complexReduceCombiner(const ir::Module& module, const ir::Region& region,
                                    std::string* why) {
  auto none = [&](std::string reason) -> const ir::Op* {
    if (why) *why = std::move(reason);
    return nullptr;
  };
  const std::string not_one = "complex combiner that is not one add or multiply";
  if (region.args.size() != 2)
    return none("combiner of several complex operands (one complex operand is run)");
  // Scalars for a reduce, slices for a chlo.scan body (applied lane by lane).
  for (ir::ValueId a : region.args) {
    const ir::Type& type = module.typeOf(a);
    if (!type.isTensor() || !ir::isComplex(type.element))
      return none("combiner mixing complex and real operands");
  }
  if (region.ops.size() != 2 || region.ops[1].kind != OpKind::Return ||
      region.ops[1].operands.empty())
    return none(not_one);
  const ir::Op& op = region.ops[0];
  if (op.kind != OpKind::Add && op.kind != OpKind::Multiply)
    return none("complex " + std::string(ir::opKindName(op.kind)) +
                " combiner (add and multiply are run)");
  const auto& in = op.operands;
  const auto& args = region.args;
  const bool reads_args = in.size() == 2 && ((in[0] == args[0] && in[1] == args[1]) ||
                                             (in[0] == args[1] && in[1] == args[0]));
  if (!reads_args || op.results.size() != 1) return none(not_one);
  // A reduce returns the result once; a chlo.scan body twice (output, carry).
  for (ir::ValueId r : region.ops[1].operands)
    if (r != op.results[0]) return none(not_one);
  return &op;
}

}  // namespace jft::fusion
