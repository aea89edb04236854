#include "fusion/scatter_form.h"

#include "fusion/ttir_support.h"

namespace jft::fusion {

ScatterCombine scatterCombineOf(const ir::Op& scatter) {
  if (scatter.regions.size() != 1) return ScatterCombine::kOther;
  const ir::Region& body = scatter.regions[0];
  if (body.args.size() != 2 || body.ops.empty()) return ScatterCombine::kOther;
  const ir::Op& ret = body.ops.back();
  if (ret.kind != ir::OpKind::Return || ret.operands.size() != 1)
    return ScatterCombine::kOther;
  if (ret.operands[0] == body.args[1] && body.ops.size() == 1)
    return ScatterCombine::kReplace;
  if (body.ops.size() != 2) return ScatterCombine::kOther;
  const ir::Op& op = body.ops[0];
  if (op.results.size() != 1 || op.results[0] != ret.operands[0] ||
      op.operands.size() != 2)
    return ScatterCombine::kOther;
  const bool both = (op.operands[0] == body.args[0] && op.operands[1] == body.args[1]) ||
                    (op.operands[0] == body.args[1] && op.operands[1] == body.args[0]);
  if (!both) return ScatterCombine::kOther;
  switch (op.kind) {
    case ir::OpKind::Add:
      return ScatterCombine::kAdd;
    case ir::OpKind::Maximum:
      return ScatterCombine::kMax;
    case ir::OpKind::Minimum:
      return ScatterCombine::kMin;
    case ir::OpKind::Multiply:
      return ScatterCombine::kMul;
    default:
      return ScatterCombine::kOther;
  }
}

namespace {

bool hasAtomic(ScatterCombine combine, ir::ElementType t) {
  using E = ir::ElementType;
  const bool int32or64 = t == E::I32 || t == E::U32 || t == E::I64 || t == E::U64;
  switch (combine) {
    case ScatterCombine::kReplace:
      return true;
    case ScatterCombine::kAdd:
      // Triton's atomic add: 32/64-bit integers, f16, bf16, f32, f64.
      return int32or64 || t == E::F16 || t == E::BF16 || t == E::F32 || t == E::F64;
    case ScatterCombine::kMax:
    case ScatterCombine::kMin:
      // Integer atomics, and f32 through its bits (tl.atomic_max's way).
      return int32or64 || t == E::F32;
    default:
      return false;
  }
}

// A CAS loop holds the region lane by lane: elementwise ops and constants
// only, on (current, update) scalars of the element type. 32/64-bit elements
// swap themselves, 8/16-bit ones the aligned 32-bit word that holds them.
bool casRegion(const ir::Module& module, const ir::Op& scatter) {
  const ir::ElementType t = module.typeOf(scatter.operands[0]).element;
  if (!ir::isInteger(t) && !ir::isFloat(t) && t != ir::ElementType::PRED) return false;
  if (t != ir::ElementType::PRED && ir::bitWidth(t) < 8) return false;  // 4-bit types
  if (scatter.regions.size() != 1) return false;
  const ir::Region& body = scatter.regions[0];
  if (body.args.size() != 2 || body.ops.empty()) return false;
  for (ir::ValueId arg : body.args) {
    const ir::Type& type = module.typeOf(arg);
    if (type.element != t || type.numElements() != 1) return false;
  }
  for (const ir::Op& op : body.ops)
    if (op.kind != ir::OpKind::Return && op.kind != ir::OpKind::Constant &&
        !isTtirElementwise(op.kind))
      return false;
  const ir::Op& ret = body.ops.back();
  return ret.kind == ir::OpKind::Return && ret.operands.size() == 1;
}

}  // namespace

bool scatterUsesCas(const ir::Module& module, const ir::Op& scatter) {
  if (scatter.operands.size() != 3) return false;
  const ir::ElementType t = module.typeOf(scatter.operands[0]).element;
  return !hasAtomic(scatterCombineOf(scatter), t) && casRegion(module, scatter);
}

std::string scatterUnsupported(const ir::Module& module, const ir::Op& scatter) {
  if (scatter.operands.size() != 3 || scatter.results.size() != 1)
    return "scatter of several inputs";
  if (!ir::isInteger(module.typeOf(scatter.operands[1]).element))
    return "scatter with non-integer indices";
  const ir::ElementType t = module.typeOf(scatter.operands[0]).element;
  if (ir::isComplex(t)) {
    // Set and add run part by part (complex addition is per part); any
    // other combine needs both parts of an element at once.
    const ScatterCombine combine = scatterCombineOf(scatter);
    if (combine == ScatterCombine::kReplace || combine == ScatterCombine::kAdd) return {};
    return "scatter of complex values other than set and add (a complex combine needs "
           "both parts of an element at once)";
  }
  if (hasAtomic(scatterCombineOf(scatter), t) || casRegion(module, scatter)) return {};
  return "scatter whose update computation is not elementwise ops of (current, update) "
         "on " +
         std::string(ir::elementTypeName(t)) + " scalars";
}

}  // namespace jft::fusion
