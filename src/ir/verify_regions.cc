// Ops that carry regions: reduce, sort, while, if, case, map. Region
// argument and result types follow the spec's "has type (...) -> (...)"
// constraints.
#include <string>

#include "ir/verify_op.h"

namespace jft::ir {
namespace {

bool isScalarOf(const Type& type, ElementType element) {
  return type.isTensor() && type.rank() == 0 && type.element == element;
}

void verifyReduce(OpVerifier& v) {
  if (!v.expectInputsAndInits()) return;
  const size_t n = v.numResults();
  if (v.op().regions.size() != 1) return (void)v.fail("expects one body region");
  auto dims = v.intsAttr("dimensions");
  if (!dims) return;
  const Type& first = v.operand(0);
  std::vector<ElementType> elements;
  for (size_t i = 0; i < n; ++i) {
    const Type& input = v.operand(i);
    const Type& init = v.operand(n + i);
    if (input.dims != first.dims)
      return (void)v.fail("input shapes differ: " + first.str() + " vs " + input.str());
    if (init.rank() != 0 || init.element != input.element)
      return (void)v.fail("init value #" + std::to_string(i) + " " + init.str() +
                          " must be a 0-d tensor of the input's element type (" +
                          input.str() + ")");
    elements.push_back(input.element);
  }
  if (!checkDimsInRange(v, *dims, first.rank(), "dimensions") ||
      !checkUnique(v, *dims, "dimensions"))
    return;
  auto body_elements = checkCombiner(v, v.op().regions[0], elements);
  if (!body_elements) return;
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < first.rank(); ++d) {
    bool reduced = false;
    for (int64_t r : *dims) reduced = reduced || r == d;
    if (!reduced) kept.push_back(first.dims[d]);
  }
  v.expectResultShapes(*body_elements, kept);
}

void verifySort(OpVerifier& v) {
  if (!v.expectTensors()) return;
  if (v.numOperands() == 0) return (void)v.fail("expects at least one input");
  if (v.resultTypes() != v.operandTypes())
    return (void)v.fail("result types " + typesText(v.resultTypes()) +
                        " differ from input types " + typesText(v.operandTypes()));
  const Type& first = v.operand(0);
  for (size_t i = 1; i < v.numOperands(); ++i)
    if (v.operand(i).dims != first.dims)
      return (void)v.fail("input shapes differ: " + first.str() + " vs " +
                          v.operand(i).str());
  const int64_t dim = v.intAttr("dimension", false).value_or(-1);
  if (dim < -first.rank() || dim >= first.rank())
    return (void)v.fail("dimension " + std::to_string(dim) + " outside [" +
                        std::to_string(-first.rank()) + ", " +
                        std::to_string(first.rank()) + ")");
  if (v.op().regions.size() != 1) return (void)v.fail("expects one comparator region");
  std::vector<Type> args;
  for (size_t i = 0; i < v.numOperands(); ++i) {
    args.push_back(Type::scalar(v.operand(i).element));
    args.push_back(Type::scalar(v.operand(i).element));
  }
  checkRegionSignature(v, v.op().regions[0], args, {Type::scalar(ElementType::PRED)},
                       "comparator");
}

void verifyWhile(OpVerifier& v) {
  const std::vector<Type> carried = v.operandTypes();
  if (v.resultTypes() != carried)
    return (void)v.fail("result types " + typesText(v.resultTypes()) +
                        " differ from operand types " + typesText(carried));
  if (v.op().regions.size() != 2) return (void)v.fail("expects cond and body regions");
  checkRegionSignature(v, v.op().regions[0], carried, {Type::scalar(ElementType::PRED)},
                       "cond");
  checkRegionSignature(v, v.op().regions[1], carried, carried, "body");
}

void verifyBranches(OpVerifier& v, ElementType selector, const char* selector_name) {
  if (!v.expectCounts(1, -1)) return;
  if (!isScalarOf(v.operand(0), selector))
    return (void)v.fail(std::string(selector_name) + " must be a 0-d tensor of " +
                        std::string(elementTypeName(selector)) + ", got " +
                        v.operand(0).str());
  const auto& regions = v.op().regions;
  if (v.op().kind == OpKind::If && regions.size() != 2)
    return (void)v.fail("expects true and false branches, got " +
                        std::to_string(regions.size()) + " regions");
  if (regions.empty()) return (void)v.fail("expects at least one branch");
  for (size_t i = 0; i < regions.size(); ++i)
    checkRegionSignature(v, regions[i], {}, v.resultTypes(),
                         "branch #" + std::to_string(i));
}

void verifyMap(OpVerifier& v) {
  if (!v.expectCounts(-1, 1) || !v.expectTensors()) return;
  if (v.numOperands() == 0) return (void)v.fail("expects at least one input");
  const Type& out = v.result(0);
  std::vector<Type> args;
  for (size_t i = 0; i < v.numOperands(); ++i) {
    if (v.operand(i).dims != out.dims)
      return (void)v.fail("input shape " + v.operand(i).str() +
                          " differs from the result's " + out.str());
    args.push_back(Type::scalar(v.operand(i).element));
  }
  auto dims = v.intsAttr("dimensions");
  if (!dims) return;
  for (int64_t d = 0; d < out.rank(); ++d)
    if (static_cast<int64_t>(dims->size()) != out.rank() || (*dims)[d] != d)
      return (void)v.fail("dimensions " + listText(*dims) +
                          " must be every dimension in order");
  if (v.op().regions.size() != 1) return (void)v.fail("expects one computation region");
  checkRegionSignature(v, v.op().regions[0], args, {Type::scalar(out.element)},
                       "computation");
}

}  // namespace

void verifyRegionOp(OpVerifier& v) {
  switch (v.op().kind) {
    case OpKind::Reduce:
      return verifyReduce(v);
    case OpKind::Sort:
      return verifySort(v);
    case OpKind::While:
      return verifyWhile(v);
    case OpKind::If:
      return verifyBranches(v, ElementType::PRED, "predicate");
    case OpKind::Case:
      return verifyBranches(v, ElementType::I32, "index");
    case OpKind::Map:
      return verifyMap(v);
    default:
      return;
  }
}

}  // namespace jft::ir
