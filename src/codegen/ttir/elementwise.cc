// What the elementwise emitter accepts, and the dispatch from a StableHLO op
// to the family that writes it.
#include "codegen/ttir/elementwise.h"

#include <limits>
#include <optional>

#include "codegen/common/elementwise_form.h"
#include "codegen/ttir/capability.h"
#include "codegen/ttir/elementwise_internal.h"
#include "codegen/ttir/elementwise_ops.h"
#include "ir/elementwise_spec.h"

namespace jft::codegen::ttir {

using ir::ElementType;
using ir::OpKind;

namespace {

// The spec's elementwise ops that the TTIR route computes elementwise:
// complex values are the complex emitter's (complex_emitter.h).
std::optional<ir::ElementwiseSpec> ttirSpecOf(OpKind kind) {
  if (kind == OpKind::Real || kind == OpKind::Imag || kind == OpKind::Complex)
    return std::nullopt;
  return ir::elementwiseSpec(kind);
}

std::string typeName(ElementType t) {
  return std::string(ir::elementTypeName(t));
}

}  // namespace

bool isEmittableElementwise(const ir::Module& module, const ir::Op& op,
                            std::string* why) {
  auto no = [&](std::string reason) {
    if (why) *why = std::move(reason);
    return false;
  };
  const std::string name(ir::opKindName(op.kind));
  const std::optional<ir::ElementwiseSpec> spec = ttirSpecOf(op.kind);
  if (!spec) return no(name + " is not an elementwise op of the TTIR emitter");
  if (std::string form = common::elementwiseFormProblem(module, op, *spec, name);
      !form.empty())
    return no(std::move(form));
  for (ir::ValueId v : op.operands) {
    const ElementType t = module.typeOf(v).element;
    if (!ttirHoldsElementType(t))
      return no(
          name + " of " + typeName(t) +
          ": TTIR computes only with pred, 8- to 64-bit integers, f16, bf16, f32, f64, "
          "f8E4M3FN and f8E5M2");
  }
  const ElementType data = module.typeOf(op.operands[spec->data_operand]).element;
  const ElementType result = module.typeOf(op.results[0]).element;
  if (!ttirHoldsElementType(result)) return no(name + " producing " + typeName(result));
  if (!ir::specAccepts(*spec, data)) return no(name + " of " + typeName(data));
  if (op.kind == OpKind::BitcastConvert) {
    const auto &in = module.typeOf(op.operands[0]), &out = module.typeOf(op.results[0]);
    if (ir::bitWidth(data) != ir::bitWidth(result) || in.dims != out.dims)
      return no("bitcast_convert between element types of different widths (" +
                typeName(data) + " -> " + typeName(result) + ")");
  }
  if (op.kind == OpKind::ReducePrecision) {
    if (data != ElementType::F16 && data != ElementType::BF16 &&
        data != ElementType::F32 && data != ElementType::F64)
      return no("reduce_precision of " + typeName(data) + " (f16, bf16, f32, f64 only)");
    const auto* e = ir::findAttrAs<int64_t>(op.attrs, "exponent_bits");
    const auto* m = ir::findAttrAs<int64_t>(op.attrs, "mantissa_bits");
    if (!e || !m || *e < 1 || *m < 0)
      return no("reduce_precision without exponent_bits >= 1 and mantissa_bits >= 0");
  }
  if (op.kind == OpKind::Compare &&
      !ir::findAttrAs<ir::ComparisonDirection>(op.attrs, "comparison_direction"))
    return no("compare without comparison_direction");
  return true;
}

StatusOr<Value> emitElementwise(TtirWriter& writer, const ir::Module& module,
                                const ir::Op& op, const std::vector<Value>& operands) {
  std::string why;
  if (!isEmittableElementwise(module, op, &why)) return unimplemented(why);
  if (operands.size() != op.operands.size())
    return internalError(std::string(ir::opKindName(op.kind)) + ": " +
                         std::to_string(operands.size()) + " operand values for " +
                         std::to_string(op.operands.size()) + " operands");
  const ElementType data =
      module.typeOf(op.operands[ttirSpecOf(op.kind)->data_operand]).element;
  const ElementType result = module.typeOf(op.results[0]).element;
  const std::vector<Value>& x = operands;
  switch (op.kind) {
    case OpKind::Compare: {
      const auto* type = ir::findAttrAs<ir::ComparisonType>(op.attrs, "compare_type");
      return ew::emitCompare(
          writer,
          *ir::findAttrAs<ir::ComparisonDirection>(op.attrs, "comparison_direction"),
          type ? *type : ir::ComparisonType::NOTYPE, data, x[0], x[1]);
    }
    case OpKind::Select:
      return ew::emitSelect(writer, x[0], x[1], x[2]);
    case OpKind::Clamp:
      return ew::emitClamp(writer, data, x[0], x[1], x[2]);
    case OpKind::Maximum:
    case OpKind::Minimum:
      return ew::emitMaxMin(writer, op.kind == OpKind::Maximum, data, x[0], x[1]);
    case OpKind::Convert:
      return ew::emitConvert(writer, data, result, x[0]);
    case OpKind::BitcastConvert:
      return ew::emitBitcastConvert(writer, data, result, x[0]);
    case OpKind::ReducePrecision:
      return ew::emitReducePrecision(writer, data, x[0],
                                     *ir::findAttrAs<int64_t>(op.attrs, "exponent_bits"),
                                     *ir::findAttrAs<int64_t>(op.attrs, "mantissa_bits"));
    case OpKind::IsFinite: {
      // |x| < inf is false for both infinities and NaN.
      Value a = ew::unary(writer, "math.absf", ew::toCompute(writer, data, x[0]));
      return ew::cmpf(
          writer, "olt", a,
          ew::constFloat(writer, a, a.scalar, std::numeric_limits<double>::infinity()));
    }
    default:
      break;
  }
  if (ir::isFloat(data)) return ew::emitFloatOp(writer, op.kind, data, x);
  return ew::emitIntegerOp(writer, op.kind, data, x);
}

}  // namespace jft::codegen::ttir
