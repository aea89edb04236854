// Ops that route values without computing on them: call and composite
// (types against the called function), tuple, get_tuple_element,
// optimization_barrier, after_all, get_dimension_size.
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
