#include "elementwise_cases.h"

#include <utility>

namespace jft::codegen::ttir::testing {

using ir::ElementType;
using ir::OpKind;
using ir::Type;

std::vector<ElementType> floatTypes() {
  return {ElementType::F32, ElementType::F64,      ElementType::BF16,
          ElementType::F16, ElementType::F8E4M3FN, ElementType::F8E5M2};
}

std::vector<ElementType> integerTypes() {
  return {ElementType::I8, ElementType::I16, ElementType::I32, ElementType::I64,
          ElementType::U8, ElementType::U16, ElementType::U32, ElementType::U64};
}

namespace {

std::string n(ElementType e) {
  return std::string(ir::elementTypeName(e));
}
std::string n(OpKind k) {
  return std::string(ir::opKindName(k));
}

OpCase same(OpKind k, ElementType e, int operands) {
  return {k, std::vector<Type>(operands, tile(e)), tile(e), {}, n(k) + "_" + n(e)};
}

}  // namespace

std::vector<OpCase> allElementwiseCases() {
  std::vector<OpCase> cases;
  const std::vector<ElementType> floats = floatTypes(), ints = integerTypes();
  for (ElementType e : floats) {
    for (OpKind k : {OpKind::Add, OpKind::Subtract, OpKind::Multiply, OpKind::Divide,
                     OpKind::Remainder, OpKind::Maximum, OpKind::Minimum, OpKind::Power,
                     OpKind::Atan2})
      cases.push_back(same(k, e, 2));
    for (OpKind k :
         {OpKind::Abs, OpKind::Negate, OpKind::Sign, OpKind::Cbrt, OpKind::Ceil,
          OpKind::Cosine, OpKind::Exponential, OpKind::ExponentialMinusOne, OpKind::Floor,
          OpKind::Log, OpKind::LogPlusOne, OpKind::Logistic, OpKind::RoundNearestAfz,
          OpKind::RoundNearestEven, OpKind::Rsqrt, OpKind::Sine, OpKind::Sqrt,
          OpKind::Tan, OpKind::Tanh})
      cases.push_back(same(k, e, 1));
    cases.push_back(
        {OpKind::IsFinite, {tile(e)}, tile(ElementType::PRED), {}, "is_finite_" + n(e)});
    // To bf16's and f16's formats (jax.lax.reduce_precision), and to no
    // mantissa at all (NaN becomes +inf there, as in XLA).
    if (e == ElementType::F16 || e == ElementType::BF16 || e == ElementType::F32 ||
        e == ElementType::F64)
      for (auto [exponent, mantissa] :
           {std::pair<int64_t, int64_t>{8, 7}, {5, 10}, {4, 0}})
        cases.push_back({OpKind::ReducePrecision,
                         {tile(e)},
                         tile(e),
                         {{"exponent_bits", exponent}, {"mantissa_bits", mantissa}},
                         "reduce_precision_e" + std::to_string(exponent) + "m" +
                             std::to_string(mantissa) + "_" + n(e)});
  }
  for (ElementType e : ints) {
    for (OpKind k : {OpKind::Add, OpKind::Subtract, OpKind::Multiply, OpKind::Divide,
                     OpKind::Remainder, OpKind::Maximum, OpKind::Minimum, OpKind::Power,
                     OpKind::And, OpKind::Or, OpKind::Xor, OpKind::ShiftLeft,
                     OpKind::ShiftRightArithmetic, OpKind::ShiftRightLogical})
      cases.push_back(same(k, e, 2));
    for (OpKind k :
         {OpKind::Negate, OpKind::Not, OpKind::Popcnt, OpKind::CountLeadingZeros})
      cases.push_back(same(k, e, 1));
    // The spec defines abs and sign on signed integers only.
    if (ir::isSignedInteger(e))
      for (OpKind k : {OpKind::Abs, OpKind::Sign}) cases.push_back(same(k, e, 1));
  }
  for (OpKind k : {OpKind::Add, OpKind::Multiply, OpKind::Maximum, OpKind::Minimum,
                   OpKind::And, OpKind::Or, OpKind::Xor})
    cases.push_back(same(k, ElementType::PRED, 2));
  cases.push_back(same(OpKind::Not, ElementType::PRED, 1));

  std::vector<ElementType> all = floats;
  all.insert(all.end(), ints.begin(), ints.end());
  all.push_back(ElementType::PRED);
  const ir::ComparisonDirection dirs[] = {
      ir::ComparisonDirection::EQ, ir::ComparisonDirection::NE,
      ir::ComparisonDirection::GE, ir::ComparisonDirection::GT,
      ir::ComparisonDirection::LE, ir::ComparisonDirection::LT};
  for (ElementType e : all) {
    std::vector<ir::ComparisonType> types;
    if (ir::isFloat(e))
      types = {ir::ComparisonType::FLOAT, ir::ComparisonType::TOTALORDER};
    else if (ir::isSignedInteger(e))
      types = {ir::ComparisonType::SIGNED};
    else
      types = {ir::ComparisonType::UNSIGNED};
    for (ir::ComparisonType t : types)
      for (ir::ComparisonDirection d : dirs)
        cases.push_back({OpKind::Compare,
                         {tile(e), tile(e)},
                         tile(ElementType::PRED),
                         {{"comparison_direction", d}, {"compare_type", t}},
                         "compare_" + std::string(ir::comparisonDirectionName(d)) + "_" +
                             std::string(ir::comparisonTypeName(t)) + "_" + n(e)});
    cases.push_back({OpKind::Select,
                     {tile(ElementType::PRED), tile(e), tile(e)},
                     tile(e),
                     {},
                     "select_" + n(e)});
    cases.push_back(
        {OpKind::Clamp, {tile(e), tile(e), tile(e)}, tile(e), {}, "clamp_" + n(e)});
    for (ElementType to : all) {
      if (to == e) continue;
      cases.push_back(
          {OpKind::Convert, {tile(e)}, tile(to), {}, "convert_" + n(e) + "_" + n(to)});
      if (ir::bitWidth(to) == ir::bitWidth(e))
        cases.push_back({OpKind::BitcastConvert,
                         {tile(e)},
                         tile(to),
                         {},
                         "bitcast_convert_" + n(e) + "_" + n(to)});
    }
  }
  // Rank-0 operands next to tiles: select's predicate, clamp's bounds.
  const Type scalar_pred = Type::scalar(ElementType::PRED);
  cases.push_back({OpKind::Select,
                   {scalar_pred, tile(ElementType::F32), tile(ElementType::F32)},
                   tile(ElementType::F32),
                   {},
                   "select_scalar_pred_f32"});
  cases.push_back({OpKind::Clamp,
                   {Type::scalar(ElementType::BF16), tile(ElementType::BF16),
                    Type::scalar(ElementType::BF16)},
                   tile(ElementType::BF16),
                   {},
                   "clamp_scalar_bounds_bf16"});
  return cases;
}

}  // namespace jft::codegen::ttir::testing
