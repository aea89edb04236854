#include "passes/known_values.h"

#include <cmath>

#include "ir/float_text.h"
#include "passes/literal_elements.h"

namespace jft::passes {
namespace {

// Looking through a few layers of broadcasts and reshapes is enough for the
// patterns JAX emits; a bound keeps the lookup cheap.
constexpr int kMaxLookThrough = 4;

std::optional<SplatValue> splatOf(const RewriteContext& context, ir::ValueId value,
                                  int depth) {
  const ir::Type& type = context.typeOf(value);
  if (!type.isTensor() || ir::isComplex(type.element) || depth > kMaxLookThrough)
    return std::nullopt;
  const ir::Op* op = context.definingOp(value);
  if (!op) return std::nullopt;
  switch (op->kind) {
    case ir::OpKind::Constant: {
      const auto* literal = ir::findAttrAs<ir::DenseElements>(op->attrs, "value");
      if (!literal || literal->type.element != type.element || !isSplat(*literal))
        return std::nullopt;
      return SplatValue{type.element, elementBits(*literal, 0)};
    }
    case ir::OpKind::BroadcastInDim:
    case ir::OpKind::Reshape:
    case ir::OpKind::Transpose:
      if (op->operands.size() != 1) return std::nullopt;
      return splatOf(context, op->operands[0], depth + 1);
    default:
      return std::nullopt;
  }
}

}  // namespace

std::optional<SplatValue> knownSplat(const RewriteContext& context, ir::ValueId value) {
  return splatOf(context, value, 0);
}

std::optional<ir::DenseElements> knownSmallLiteral(const RewriteContext& context,
                                                   ir::ValueId value,
                                                   int64_t max_elements) {
  const ir::Type& type = context.typeOf(value);
  if (!type.isTensor() || type.numElements() > max_elements) return std::nullopt;
  const ir::Op* op = context.definingOp(value);
  if (op && op->kind == ir::OpKind::Constant) {
    const auto* literal = ir::findAttrAs<ir::DenseElements>(op->attrs, "value");
    if (literal && literal->type == type) return *literal;
  }
  if (std::optional<SplatValue> splat = knownSplat(context, value))
    return splatLiteral(type, splat->bits);
  return std::nullopt;
}

bool isIntegerSplatOf(const SplatValue& splat, int64_t value) {
  if (!ir::isInteger(splat.element) && !ir::isPred(splat.element)) return false;
  ir::DenseElements one_element =
      splatLiteral(ir::Type::scalar(splat.element), splat.bits);
  return elementInteger(one_element, 0) == value;
}

bool isFloatOne(const SplatValue& splat) {
  return ir::isFloat(splat.element) && ir::decodeFloat(splat.element, splat.bits) == 1.0;
}

bool isFloatZero(const SplatValue& splat, bool negative) {
  if (!ir::isFloat(splat.element)) return false;
  const double decoded = ir::decodeFloat(splat.element, splat.bits);
  return decoded == 0.0 && std::signbit(decoded) == negative;
}

bool isFloatInfinity(const SplatValue& splat, bool negative) {
  if (!ir::isFloat(splat.element)) return false;
  const double decoded = ir::decodeFloat(splat.element, splat.bits);
  return std::isinf(decoded) && std::signbit(decoded) == negative;
}

}  // namespace jft::passes
