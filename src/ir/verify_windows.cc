// Windowed ops: reduce_window and select_and_scatter. Window attributes
// default as in StableHLO (sizes and strides 1, no padding or dilation).
#include <string>

#include "ir/verify_op.h"

namespace jft::ir {
namespace {

// A per-dimension window attribute of `rank` entries: `fill` when absent,
// every entry at least `min`.
std::optional<std::vector<int64_t>> windowAttr(OpVerifier& v, std::string_view name,
                                               int64_t rank, int64_t fill, int64_t min,
                                               bool required = false) {
  auto values = v.intsAttr(name, required);
  if (!values) {
    if (required) return std::nullopt;
    return std::vector<int64_t>(rank, fill);
  }
  if (static_cast<int64_t>(values->size()) != rank) {
    v.fail(std::string(name) + " " + listText(*values) + " must have " +
           std::to_string(rank) + " entries");
    return std::nullopt;
  }
  for (int64_t x : *values)
    if (x < min) {
      v.fail(std::string(name) + " " + listText(*values) + " must be at least " +
             std::to_string(min));
      return std::nullopt;
    }
  return values;
}

// Padding as [rank, 2] (low, high per dimension), flattened.
std::optional<std::vector<int64_t>> paddingAttr(OpVerifier& v, int64_t rank) {
  auto values = v.intsAttr("padding", /*required=*/false);
  if (!values) return std::vector<int64_t>(2 * rank, 0);
  if (static_cast<int64_t>(values->size()) != 2 * rank) {
    v.fail("padding " + listText(*values) + " must hold a (low, high) pair for each of " +
           std::to_string(rank) + " dimensions");
    return std::nullopt;
  }
  return values;
}

void verifyReduceWindow(OpVerifier& v) {
  if (!v.expectInputsAndInits()) return;
  const size_t n = v.numResults();
  const Type& first = v.operand(0);
  const int64_t rank = first.rank();
  std::vector<ElementType> elements;
  for (size_t i = 0; i < n; ++i) {
    if (v.operand(i).dims != first.dims)
      return (void)v.fail("input shapes differ: " + first.str() + " vs " +
                          v.operand(i).str());
    const Type& init = v.operand(n + i);
    if (init.rank() != 0 || init.element != v.operand(i).element)
      return (void)v.fail("init value #" + std::to_string(i) + " " + init.str() +
                          " must be a 0-d tensor of the input's element type");
    elements.push_back(v.operand(i).element);
  }
  auto window = windowAttr(v, "window_dimensions", rank, 1, 1, /*required=*/true);
  auto strides = windowAttr(v, "window_strides", rank, 1, 1);
  auto base = windowAttr(v, "base_dilations", rank, 1, 1);
  auto dilations = windowAttr(v, "window_dilations", rank, 1, 1);
  auto padding = paddingAttr(v, rank);
  if (!window || !strides || !base || !dilations || !padding) return;
  if (v.op().regions.size() != 1) return (void)v.fail("expects one body region");
  auto body_elements = checkCombiner(v, v.op().regions[0], elements);
  if (!body_elements) return;
  std::vector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    auto count =
        windowCount(first.dims[d], (*window)[d], (*strides)[d], (*padding)[2 * d],
                    (*padding)[2 * d + 1], (*base)[d], (*dilations)[d]);
    if (!count) return (void)v.fail("window sizes overflow int64");
    shape.push_back(*count);
  }
  v.expectResultShapes(*body_elements, shape);
}

void verifySelectAndScatter(OpVerifier& v) {
  if (!v.expectCounts(3, 1) || !v.expectTensors()) return;
  const Type& operand = v.operand(0);
  const Type& source = v.operand(1);
  const Type& init = v.operand(2);
  const int64_t rank = operand.rank();
  if (source.element != operand.element)
    return (void)v.fail("source element type differs from the operand's: " +
                        source.str() + " vs " + operand.str());
  if (init.rank() != 0 || init.element != operand.element)
    return (void)v.fail("init value " + init.str() +
                        " must be a 0-d tensor of the operand's element type");
  auto window = windowAttr(v, "window_dimensions", rank, 1, 1);
  auto strides = windowAttr(v, "window_strides", rank, 1, 1);
  auto padding = paddingAttr(v, rank);
  if (!window || !strides || !padding) return;
  std::vector<int64_t> windows;
  for (int64_t d = 0; d < rank; ++d) {
    auto count = windowCount(operand.dims[d], (*window)[d], (*strides)[d],
                             (*padding)[2 * d], (*padding)[2 * d + 1], 1, 1);
    if (!count) return (void)v.fail("window sizes overflow int64");
    windows.push_back(*count);
  }
  if (source.dims != windows)
    return (void)v.fail("source shape " + shapeText(source.dims) +
                        " should be the window count " + shapeText(windows));
  if (v.op().regions.size() != 2)
    return (void)v.fail("expects select and scatter regions");
  const Type scalar = Type::scalar(operand.element);
  if (!checkRegionSignature(v, v.op().regions[0], {scalar, scalar},
                            {Type::scalar(ElementType::PRED)}, "select"))
    return;
  auto scatter_elements = checkCombiner(v, v.op().regions[1], {operand.element});
  if (!scatter_elements) return;
  const Type expected = Type::tensor((*scatter_elements)[0], operand.dims);
  if (v.result(0) != expected)
    v.fail("result type " + v.result(0).str() + " should be " + expected.str());
}

}  // namespace

void verifyWindowOp(OpVerifier& v) {
  if (v.op().kind == OpKind::ReduceWindow) return verifyReduceWindow(v);
  if (v.op().kind == OpKind::SelectAndScatter) return verifySelectAndScatter(v);
}

}  // namespace jft::ir
