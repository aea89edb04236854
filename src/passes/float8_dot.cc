#include "passes/float8_dot.h"

#include <utility>

#include "passes/op_emitter.h"

namespace jft::passes {
namespace {

bool widenable(ElementType t) {
  return ir::isFloat(t) && ir::bitWidth(t) == 8 && t != ElementType::F8E8M0FNU;
}

bool widenFloat8Dot(ir::Module& module, const ir::Op& op, std::vector<ir::Op>& out) {
  if ((op.kind != OpKind::DotGeneral && op.kind != OpKind::Dot) ||
      op.operands.size() != 2 || op.results.size() != 1)
    return false;
  const ElementType lhs = module.typeOf(op.operands[0]).element;
  const ElementType rhs = module.typeOf(op.operands[1]).element;
  const ir::Type result = module.typeOf(op.results[0]);
  if (!widenable(lhs) || !widenable(rhs)) return false;
  const bool narrow_result = widenable(result.element);
  if (!narrow_result && result.element != ElementType::F32 &&
      result.element != ElementType::F16 && result.element != ElementType::BF16)
    return false;
  OpEmitter e(module, op, out);
  const ElementType wide =
      result.element == ElementType::BF16 ? ElementType::BF16 : ElementType::F16;
  ir::NamedAttrs attrs;
  for (const auto& attr : op.attrs)
    if (attr.first != "algorithm") attrs.push_back(attr);
  const ir::Type accumulated =
      narrow_result ? ir::Type::tensor(ElementType::F32, result.dims) : result;
  ValueId value =
      e.emit(op.kind, {e.convert(op.operands[0], wide), e.convert(op.operands[1], wide)},
             accumulated, std::move(attrs));
  if (narrow_result) value = e.convert(value, result.element);
  e.giveId(value, op.results[0]);
  return true;
}

}  // namespace

bool widenFloat8Dots(ir::Module& module) {
  return rewriteOps(module, widenFloat8Dot);
}

}  // namespace jft::passes
