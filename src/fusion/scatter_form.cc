#include "fusion/scatter_form.h"

#include <algorithm>

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

bool scatterOrderDependent(const ir::Module& module, const ir::Op& scatter) {
  if (scatter.operands.empty()) return true;
  const ir::ElementType t = module.typeOf(scatter.operands[0]).element;
  // Integer arithmetic wraps, so integer add is associative; max/min pick a
  // value whatever the order (a NaN propagates either way).
  switch (scatterCombineOf(scatter)) {
    case ScatterCombine::kAdd:
      return !ir::isInteger(t);
    case ScatterCombine::kMax:
    case ScatterCombine::kMin:
      return !ir::isInteger(t) && !ir::isFloat(t);
    default:
      return true;
  }
}

bool scatterWindowsDisjoint(const ir::Module& module, const ir::Op& scatter) {
  if (scatter.operands.size() != 3) return false;
  const auto* dn = ir::findAttrAs<ir::ScatterDimensionNumbers>(
      scatter.attrs, "scatter_dimension_numbers");
  if (!dn) return false;
  const std::vector<int64_t>& operand = module.typeOf(scatter.operands[0]).dims;
  const std::vector<int64_t>& updates = module.typeOf(scatter.operands[2]).dims;
  auto listed = [](const std::vector<int64_t>& list, int64_t v) {
    return std::find(list.begin(), list.end(), v) != list.end();
  };
  // The window's extent along each operand dim (1 on inserted and batching
  // dims), as the emitter computes it.
  std::vector<int64_t> window(operand.size(), 1);
  size_t next = 0;
  for (size_t d = 0; d < operand.size(); ++d) {
    const int64_t di = static_cast<int64_t>(d);
    if (listed(dn->inserted_window_dims, di) || listed(dn->input_batching_dims, di))
      continue;
    if (next >= dn->update_window_dims.size()) return false;
    const int64_t ud = dn->update_window_dims[next++];
    if (ud < 0 || static_cast<size_t>(ud) >= updates.size()) return false;
    window[d] = updates[static_cast<size_t>(ud)];
  }
  for (int64_t d : dn->scatter_dims_to_operand_dims) {
    if (d < 0 || static_cast<size_t>(d) >= operand.size()) return false;
    const size_t du = static_cast<size_t>(d);
    if (window[du] != 1 && window[du] != operand[du]) return false;
  }
  return true;
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
