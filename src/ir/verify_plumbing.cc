// Ops that route values without computing on them: call and composite
// (types against the called function), custom_call (called computations,
// operand aliases), tuple, get_tuple_element,
// optimization_barrier, after_all, get_dimension_size.
#include <optional>
#include <string>

#include "ir/verify_op.h"

namespace jft::ir {
namespace {

// A call-like op's operands and results against function `attr` names.
void checkCallee(OpVerifier& v, std::string_view attr) {
  const auto* callee = v.requiredAttr<SymbolRef>(attr);
  if (!callee) return;
  const Function* function = v.module().findFunction(callee->name);
  if (!function)
    return (void)v.fail(std::string(attr) + " @" + callee->name + " does not exist");
  const std::vector<Type> params = regionArgTypes(v.module(), function->body);
  if (v.operandTypes() != params)
    return (void)v.fail("operand types " + typesText(v.operandTypes()) +
                        " do not match @" + callee->name + " arguments " +
                        typesText(params));
  if (v.resultTypes() != function->result_types)
    v.fail("result types " + typesText(v.resultTypes()) + " do not match @" +
           callee->name + " results " + typesText(function->result_types));
}

// Follows tuple indices into `type`; nullopt when one is out of range.
std::optional<Type> tupleElementAt(Type type, const std::vector<int64_t>& indices,
                                   size_t first) {
  for (size_t i = first; i < indices.size(); ++i) {
    if (!type.isTuple() || indices[i] < 0 ||
        indices[i] >= static_cast<int64_t>(type.tuple.size()))
      return std::nullopt;
    type = Type(type.tuple[indices[i]]);
  }
  return type;
}

// custom_call: called computations exist, and every output/operand alias
// joins two values of one type (the runtime writes the output into the
// operand's buffer).
void verifyCustomCall(OpVerifier& v) {
  if (const Attribute* called = findAttr(v.op().attrs, "called_computations");
      called && called->is<AttrList>())
    for (const Attribute& entry : called->as<AttrList>())
      if (entry.is<SymbolRef>() && !v.module().findFunction(entry.as<SymbolRef>().name))
        v.fail("called computation @" + entry.as<SymbolRef>().name + " does not exist");
  const auto* aliases =
      v.optionalAttr<std::vector<OutputOperandAlias>>("output_operand_aliases");
  if (!aliases) return;
  for (const OutputOperandAlias& alias : *aliases) {
    if (alias.operand_index < 0 ||
        alias.operand_index >= static_cast<int64_t>(v.numOperands()))
      return (void)v.fail("output_operand_aliases names operand " +
                          std::to_string(alias.operand_index) + " of " +
                          std::to_string(v.numOperands()));
    // With several results the first output index picks the result.
    const bool by_result = v.numResults() > 1;
    const auto& out = alias.output_tuple_indices;
    std::optional<Type> output;
    if (!by_result && v.numResults() == 1) output = tupleElementAt(v.result(0), out, 0);
    if (by_result && !out.empty() && out[0] >= 0 &&
        out[0] < static_cast<int64_t>(v.numResults()))
      output = tupleElementAt(v.result(out[0]), out, 1);
    const std::optional<Type> input =
        tupleElementAt(v.operand(alias.operand_index), alias.operand_tuple_indices, 0);
    if (!output || !input)
      return (void)v.fail("output_operand_aliases has tuple indices out of range");
    if (*output != *input)
      return (void)v.fail("output_operand_aliases joins " + output->str() + " and " +
                          input->str() + " (types must be equal)");
  }
}

void verifyTuple(OpVerifier& v) {
  if (!v.expectCounts(-1, 1)) return;
  const Type expected = Type::makeTuple(v.operandTypes());
  if (v.result(0) != expected)
    v.fail("result type " + v.result(0).str() + " should be " + expected.str());
}

void verifyGetTupleElement(OpVerifier& v) {
  if (!v.expectCounts(1, 1)) return;
  const Type& tuple = v.operand(0);
  if (!tuple.isTuple())
    return (void)v.fail("operand must be a tuple, got " + tuple.str());
  auto index = v.intAttr("index");
  if (!index) return;
  if (*index < 0 || *index >= static_cast<int64_t>(tuple.tuple.size()))
    return (void)v.fail("index " + std::to_string(*index) + " outside " + tuple.str());
  if (v.result(0) != tuple.tuple[*index])
    v.fail("result type " + v.result(0).str() + " should be " +
           tuple.tuple[*index].str());
}

void verifyOptimizationBarrier(OpVerifier& v) {
  if (v.resultTypes() != v.operandTypes())
    v.fail("result types " + typesText(v.resultTypes()) + " differ from operand types " +
           typesText(v.operandTypes()));
}

void verifyAfterAll(OpVerifier& v) {
  if (!v.expectCounts(-1, 1)) return;
  for (size_t i = 0; i < v.numOperands(); ++i)
    if (!v.operand(i).isToken())
      return (void)v.fail("operand #" + std::to_string(i) + " must be a token, got " +
                          v.operand(i).str());
  if (!v.result(0).isToken()) v.fail("result must be a token, got " + v.result(0).str());
}

void verifyGetDimensionSize(OpVerifier& v) {
  if (!v.expectCounts(1, 1) || !v.expectTensors()) return;
  auto dim = v.intAttr("dimension");
  if (!dim) return;
  if (*dim < 0 || *dim >= v.operand(0).rank())
    return (void)v.fail("dimension " + std::to_string(*dim) + " outside [0, " +
                        std::to_string(v.operand(0).rank()) + ")");
  if (v.result(0) != Type::scalar(ElementType::I32))
    v.fail("result must be tensor<i32>, got " + v.result(0).str());
}

}  // namespace

void verifyPlumbing(OpVerifier& v) {
  switch (v.op().kind) {
    case OpKind::Call:
      return checkCallee(v, "callee");
    case OpKind::Composite:
      return checkCallee(v, "decomposition");
    case OpKind::CustomCall:
      return verifyCustomCall(v);
    case OpKind::Tuple:
      return verifyTuple(v);
    case OpKind::GetTupleElement:
      return verifyGetTupleElement(v);
    case OpKind::OptimizationBarrier:
      return verifyOptimizationBarrier(v);
    case OpKind::AfterAll:
      return verifyAfterAll(v);
    case OpKind::GetDimensionSize:
      return verifyGetDimensionSize(v);
    default:
      return;
  }
}

}  // namespace jft::ir
