#include "passes/integer_fold.h"

#include <limits>

#include "passes/literal_elements.h"
#include "support/enum_table.h"

namespace jft::passes {
namespace {

using ir::ElementType;
using ir::OpKind;

struct IntType {
  ElementType element;
  int width;
  bool is_signed;
};

IntType intType(ElementType element) {
  return {element, ir::bitWidth(element), ir::isSignedInteger(element)};
}

int64_t minSigned(int width) {
  return width >= 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (width - 1));
}

bool lessThan(const IntType& type, int64_t a, int64_t b) {
  if (type.is_signed) return a < b;
  return static_cast<uint64_t>(a) < static_cast<uint64_t>(b);
}

std::optional<bool> compare(const ir::Op& op, const IntType& type, int64_t a, int64_t b) {
  const auto* direction =
      ir::findAttrAs<ir::ComparisonDirection>(op.attrs, "comparison_direction");
  if (!direction) return std::nullopt;
  switch (*direction) {
    case ir::ComparisonDirection::EQ:
      return a == b;
    case ir::ComparisonDirection::NE:
      return a != b;
    case ir::ComparisonDirection::LT:
      return lessThan(type, a, b);
    case ir::ComparisonDirection::LE:
      return !lessThan(type, b, a);
    case ir::ComparisonDirection::GT:
      return lessThan(type, b, a);
    case ir::ComparisonDirection::GE:
      return !lessThan(type, a, b);
  }
  return std::nullopt;
}

// Shift amounts as StableHLO reads them: unsigned types' amounts are
// unsigned. nullopt outside [0, width).
std::optional<int> shiftAmount(const IntType& type, int64_t amount) {
  if (type.is_signed && amount < 0) return std::nullopt;
  if (static_cast<uint64_t>(amount) >= static_cast<uint64_t>(type.width))
    return std::nullopt;
  return static_cast<int>(amount);
}

std::optional<uint64_t> binary(const ir::Op& op, const IntType& type, int64_t a,
                               int64_t b) {
  const uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  switch (op.kind) {
    case OpKind::Add:
      return ir::isPred(type.element) ? ua | ub : ua + ub;
    case OpKind::Subtract:
      return ua - ub;
    case OpKind::Multiply:
      return ua * ub;
    case OpKind::Divide:
    case OpKind::Remainder: {
      if (b == 0) return std::nullopt;
      if (type.is_signed && b == -1 && a == minSigned(type.width)) return std::nullopt;
      const bool divide = op.kind == OpKind::Divide;
      if (type.is_signed) return static_cast<uint64_t>(divide ? a / b : a % b);
      return divide ? ua / ub : ua % ub;
    }
    case OpKind::And:
      return ua & ub;
    case OpKind::Or:
      return ua | ub;
    case OpKind::Xor:
      return ua ^ ub;
    case OpKind::Minimum:
      return lessThan(type, b, a) ? ub : ua;
    case OpKind::Maximum:
      return lessThan(type, a, b) ? ub : ua;
    case OpKind::ShiftLeft: {
      std::optional<int> amount = shiftAmount(type, b);
      if (!amount) return std::nullopt;
      return ua << *amount;
    }
    case OpKind::ShiftRightLogical: {
      std::optional<int> amount = shiftAmount(type, b);
      if (!amount) return std::nullopt;
      const uint64_t mask =
          type.width >= 64 ? ~uint64_t{0} : (uint64_t{1} << type.width) - 1;
      return (ua & mask) >> *amount;
    }
    case OpKind::ShiftRightArithmetic: {
      std::optional<int> amount = shiftAmount(type, b);
      if (!amount || !type.is_signed) return std::nullopt;
      return static_cast<uint64_t>(a >> *amount);  // a is sign-extended
    }
    default:
      return std::nullopt;
  }
}

std::optional<uint64_t> unary(const ir::Op& op, const IntType& type, int64_t a) {
  const uint64_t ua = static_cast<uint64_t>(a);
  switch (op.kind) {
    case OpKind::Negate:
      return uint64_t{0} - ua;
    case OpKind::Not:
      return ir::isPred(type.element) ? uint64_t{a == 0} : ~ua;
    case OpKind::Abs:
      if (!type.is_signed) return std::nullopt;
      return a < 0 ? uint64_t{0} - ua : ua;
    default:
      return std::nullopt;
  }
}

// Integer/pred conversion, only when the value survives unchanged (to pred:
// non-zero is true, as the specification says).
std::optional<uint64_t> convert(const IntType& from, const IntType& to, int64_t a) {
  if (ir::isPred(to.element)) return uint64_t{a != 0};
  // Only a u64 above INT64_MAX reads as negative without being signed.
  if (!from.is_signed && a < 0)
    return to.width == 64 && !to.is_signed ? std::optional<uint64_t>(a) : std::nullopt;
  if (to.is_signed) {
    if (to.width < 64) {
      const int64_t low = minSigned(to.width), high = -(low + 1);
      if (a < low || a > high) return std::nullopt;
    }
    return static_cast<uint64_t>(a);
  }
  if (a < 0) return std::nullopt;
  if (to.width < 64 && static_cast<uint64_t>(a) >> to.width != 0) return std::nullopt;
  return static_cast<uint64_t>(a);
}

// Pred supports the logical subset; add and multiply are or and and there.
bool foldsOnPred(OpKind kind) {
  return isOneOf(kind, {OpKind::Add, OpKind::Multiply, OpKind::And, OpKind::Or,
                        OpKind::Xor, OpKind::Not, OpKind::Minimum, OpKind::Maximum,
                        OpKind::Compare, OpKind::Convert});
}

bool sameShapedOperands(const std::vector<ir::DenseElements>& operands,
                        const ir::Type& result_type) {
  for (const ir::DenseElements& operand : operands) {
    if (operand.type.dims != result_type.dims) return false;
    if (!isFoldableIntegerType(operand.type.element)) return false;
  }
  return true;
}

}  // namespace

bool isFoldableIntegerType(ElementType element) {
  return ir::isPred(element) || (ir::isInteger(element) && ir::bitWidth(element) >= 8);
}

std::optional<ir::DenseElements> foldIntegerOp(
    const ir::Op& op, const std::vector<ir::DenseElements>& operands,
    const ir::Type& result_type) {
  if (!result_type.isTensor() || !isFoldableIntegerType(result_type.element) ||
      operands.empty() || !sameShapedOperands(operands, result_type))
    return std::nullopt;
  const IntType type = intType(operands[0].type.element);
  const IntType result = intType(result_type.element);
  if (ir::isPred(type.element) && !foldsOnPred(op.kind)) return std::nullopt;
  if (op.kind != OpKind::Convert && op.kind != OpKind::Compare &&
      result.element != type.element)
    return std::nullopt;
  // Splat operands fold to a splat: one element computed, one kept.
  bool all_splats = true;
  for (const ir::DenseElements& operand : operands) all_splats &= operand.splat;
  const int64_t count = all_splats ? std::min<int64_t>(result_type.numElements(), 1)
                                   : result_type.numElements();
  ir::DenseElements folded;
  folded.type = result_type;
  for (int64_t i = 0; i < count; ++i) {
    std::optional<uint64_t> value;
    const int64_t a = elementInteger(operands[0], i);
    if (operands.size() == 1) {
      value = op.kind == OpKind::Convert ? convert(type, result, a) : unary(op, type, a);
    } else if (operands.size() == 2) {
      const int64_t b = elementInteger(operands[1], i);
      if (op.kind == OpKind::Compare) {
        std::optional<bool> truth = compare(op, type, a, b);
        if (truth) value = *truth ? 1 : 0;
      } else {
        value = binary(op, type, a, b);
      }
    }
    if (!value) return std::nullopt;
    appendElement(folded.bytes, result.element, *value);
  }
  if (all_splats && count == 1)
    return ir::DenseElements::makeSplat(result_type, std::move(folded.bytes));
  return folded;
}

}  // namespace jft::passes
