// Ops that move or re-index elements without arithmetic: broadcast_in_dim,
// reshape, transpose, slice, dynamic_slice, dynamic_update_slice,
// concatenate, pad, iota, reverse, and constant.
#include <algorithm>
#include <string>

#include "ir/verify_op.h"

namespace jft::ir {
namespace {

bool checkSameElement(OpVerifier& v, const Type& in, const Type& out) {
  if (in.element == out.element) return true;
  return v.fail("result element type " + std::string(elementTypeName(out.element)) +
                " differs from operand's " + std::string(elementTypeName(in.element)));
}

bool checkResultShape(OpVerifier& v, const std::vector<int64_t>& expected) {
  if (v.result(0).dims == expected) return true;
  return v.fail("result shape " + shapeText(v.result(0).dims) + " should be " +
                shapeText(expected));
}

bool checkSize(OpVerifier& v, const std::vector<int64_t>& values, int64_t size,
               std::string_view what) {
  if (static_cast<int64_t>(values.size()) == size) return true;
  return v.fail(std::string(what) + " " + listText(values) + " must have " +
                std::to_string(size) + " entries");
}

// Start indices of dynamic_slice/dynamic_update_slice: 0-d integers of one type.
bool checkScalarIndices(OpVerifier& v, size_t first, int64_t rank) {
  const int64_t count = static_cast<int64_t>(v.numOperands() - first);
  if (count != rank)
    return v.fail("expects " + std::to_string(rank) + " start indices, got " +
                  std::to_string(count));
  for (size_t i = first; i < v.numOperands(); ++i) {
    const Type& index = v.operand(i);
    if (index.rank() != 0 || !isInteger(index.element))
      return v.fail("start index #" + std::to_string(i - first) +
                    " must be a 0-d integer tensor, got " + index.str());
    if (index != v.operand(first))
      return v.fail("start indices have different types: " + v.operand(first).str() +
                    " vs " + index.str());
  }
  return true;
}

void verifyBroadcastInDim(OpVerifier& v) {
  if (!v.expectCounts(1, 1) || !v.expectTensors()) return;
  const Type& in = v.operand(0);
  const Type& out = v.result(0);
  auto dims = v.intsAttr("broadcast_dimensions");
  if (!dims || !checkSameElement(v, in, out)) return;
  if (!checkSize(v, *dims, in.rank(), "broadcast_dimensions")) return;
  if (!checkDimsInRange(v, *dims, out.rank(), "broadcast_dimensions") ||
      !checkUnique(v, *dims, "broadcast_dimensions"))
    return;
  for (int64_t d = 0; d < in.rank(); ++d) {
    const int64_t size = in.dims[d];
    const int64_t target = out.dims[(*dims)[d]];
    if (size != 1 && size != target)
      return (void)v.fail(
          "operand dimension " + std::to_string(d) + " (size " + std::to_string(size) +
          ") cannot broadcast to result dimension " + std::to_string((*dims)[d]) +
          " (size " + std::to_string(target) + ")");
  }
}

void verifyReshape(OpVerifier& v) {
  if (!v.expectCounts(1, 1) || !v.expectTensors()) return;
  const Type& in = v.operand(0);
  const Type& out = v.result(0);
  if (!checkSameElement(v, in, out)) return;
  const auto in_count = checkedProduct(in.dims);
  const auto out_count = checkedProduct(out.dims);
  if (!in_count || !out_count) return (void)v.fail("element count overflows int64");
  if (*in_count != *out_count)
    v.fail("element counts differ: " + in.str() + " has " + std::to_string(*in_count) +
           ", " + out.str() + " has " + std::to_string(*out_count));
}

void verifyTranspose(OpVerifier& v) {
  if (!v.expectCounts(1, 1) || !v.expectTensors()) return;
  const Type& in = v.operand(0);
  auto perm = v.intsAttr("permutation");
  if (!perm || !checkSameElement(v, in, v.result(0))) return;
  if (!checkSize(v, *perm, in.rank(), "permutation") ||
      !checkDimsInRange(v, *perm, in.rank(), "permutation") ||
      !checkUnique(v, *perm, "permutation"))
    return;
  std::vector<int64_t> expected;
  for (int64_t p : *perm) expected.push_back(in.dims[p]);
  checkResultShape(v, expected);
}

void verifySlice(OpVerifier& v) {
  if (!v.expectCounts(1, 1) || !v.expectTensors()) return;
  const Type& in = v.operand(0);
  auto start = v.intsAttr("start_indices");
  auto limit = v.intsAttr("limit_indices");
  auto strides = v.intsAttr("strides");
  if (!start || !limit || !strides || !checkSameElement(v, in, v.result(0))) return;
  if (!checkSize(v, *start, in.rank(), "start_indices") ||
      !checkSize(v, *limit, in.rank(), "limit_indices") ||
      !checkSize(v, *strides, in.rank(), "strides"))
    return;
  std::vector<int64_t> expected;
  for (int64_t d = 0; d < in.rank(); ++d) {
    const int64_t s = (*start)[d], l = (*limit)[d], st = (*strides)[d];
    if (s < 0 || s > l || l > in.dims[d])
      return (void)v.fail("dimension " + std::to_string(d) + ": need 0 <= start " +
                          std::to_string(s) + " <= limit " + std::to_string(l) +
                          " <= size " + std::to_string(in.dims[d]));
    if (st <= 0)
      return (void)v.fail("dimension " + std::to_string(d) + ": stride " +
                          std::to_string(st) + " must be positive");
    expected.push_back(l == s ? 0 : (l - s - 1) / st + 1);
  }
  checkResultShape(v, expected);
}

void verifyDynamicSlice(OpVerifier& v) {
  if (!v.expectCounts(-1, 1) || v.numOperands() < 1 || !v.expectTensors()) return;
  const Type& in = v.operand(0);
  auto sizes = v.intsAttr("slice_sizes");
  if (!sizes || !checkSameElement(v, in, v.result(0))) return;
  if (!checkScalarIndices(v, 1, in.rank()) ||
      !checkSize(v, *sizes, in.rank(), "slice_sizes"))
    return;
  for (int64_t d = 0; d < in.rank(); ++d)
    if ((*sizes)[d] < 0 || (*sizes)[d] > in.dims[d])
      return (void)v.fail("slice_sizes " + listText(*sizes) + " exceed operand shape " +
                          shapeText(in.dims));
  checkResultShape(v, *sizes);
}

void verifyDynamicUpdateSlice(OpVerifier& v) {
  if (!v.expectCounts(-1, 1) || v.numOperands() < 2 || !v.expectTensors()) return;
  const Type& in = v.operand(0);
  const Type& update = v.operand(1);
  if (!checkResultIsOperandType(v, in)) return;
  if (update.element != in.element || update.rank() != in.rank())
    return (void)v.fail("update " + update.str() + " must have the operand's rank and " +
                        "element type: " + in.str());
  if (!checkScalarIndices(v, 2, in.rank())) return;
  for (int64_t d = 0; d < in.rank(); ++d)
    if (update.dims[d] > in.dims[d])
      return (void)v.fail("update shape " + shapeText(update.dims) +
                          " exceeds operand shape " + shapeText(in.dims));
}

void verifyConcatenate(OpVerifier& v) {
  if (!v.expectCounts(-1, 1) || !v.expectTensors()) return;
  if (v.numOperands() == 0) return (void)v.fail("expects at least one input");
  auto dim = v.intAttr("dimension");
  if (!dim) return;
  const Type& first = v.operand(0);
  if (*dim < 0 || *dim >= first.rank())
    return (void)v.fail("dimension " + std::to_string(*dim) + " outside [0, " +
                        std::to_string(first.rank()) + ")");
  std::vector<int64_t> expected = first.dims;
  expected[*dim] = 0;
  for (size_t i = 0; i < v.numOperands(); ++i) {
    const Type& input = v.operand(i);
    std::vector<int64_t> other = input.dims;
    if (input.element != first.element || input.rank() != first.rank())
      return (void)v.fail("input #" + std::to_string(i) + " " + input.str() +
                          " does not match input #0 " + first.str());
    other[*dim] = first.dims[*dim];
    if (other != first.dims)
      return (void)v.fail("input shapes differ outside dimension " +
                          std::to_string(*dim) + ": " + first.str() + " vs " +
                          input.str());
    auto sum = checkedAdd(expected[*dim], input.dims[*dim]);
    if (!sum) return (void)v.fail("concatenated size overflows int64");
    expected[*dim] = *sum;
  }
  if (checkSameElement(v, first, v.result(0))) checkResultShape(v, expected);
}

void verifyPad(OpVerifier& v) {
  if (!v.expectCounts(2, 1) || !v.expectTensors()) return;
  const Type& in = v.operand(0);
  const Type& padding = v.operand(1);
  if (padding.rank() != 0 || padding.element != in.element)
    return (void)v.fail("padding value must be a 0-d tensor of " +
                        std::string(elementTypeName(in.element)) + ", got " +
                        padding.str());
  auto low = v.intsAttr("edge_padding_low");
  auto high = v.intsAttr("edge_padding_high");
  auto interior = v.intsAttr("interior_padding");
  if (!low || !high || !interior || !checkSameElement(v, in, v.result(0))) return;
  if (!checkSize(v, *low, in.rank(), "edge_padding_low") ||
      !checkSize(v, *high, in.rank(), "edge_padding_high") ||
      !checkSize(v, *interior, in.rank(), "interior_padding"))
    return;
  std::vector<int64_t> expected;
  for (int64_t d = 0; d < in.rank(); ++d) {
    if ((*interior)[d] < 0)
      return (void)v.fail("interior_padding " + listText(*interior) + " is negative");
    // low + size + max(size - 1, 0) * interior + high, overflow-checked.
    const int64_t size = in.dims[d];
    std::optional<int64_t> padded =
        checkedMul(std::max<int64_t>(size - 1, 0), (*interior)[d]);
    if (padded) padded = checkedAdd(*padded, size);
    if (padded) padded = checkedAdd(*padded, (*low)[d]);
    if (padded) padded = checkedAdd(*padded, (*high)[d]);
    if (!padded)
      return (void)v.fail("dimension " + std::to_string(d) + " overflows int64");
    if (*padded < 0)
      return (void)v.fail("dimension " + std::to_string(d) + " pads to a negative size");
    expected.push_back(*padded);
  }
  checkResultShape(v, expected);
}

void verifyIota(OpVerifier& v) {
  if (!v.expectCounts(0, 1) || !v.expectTensors()) return;
  const Type& out = v.result(0);
  auto dim = v.intAttr("iota_dimension");
  if (!dim) return;
  if (*dim < 0 || *dim >= out.rank())
    return (void)v.fail("iota_dimension " + std::to_string(*dim) + " outside [0, " +
                        std::to_string(out.rank()) + ")");
  if (isPred(out.element))
    v.fail("result element type must be integer, floating-point or complex, got i1");
}

void verifyReverse(OpVerifier& v) {
  if (!v.expectCounts(1, 1) || !v.expectTensors()) return;
  const Type& in = v.operand(0);
  if (!checkResultIsOperandType(v, in)) return;
  auto dims = v.intsAttr("dimensions");
  if (dims && checkUnique(v, *dims, "dimensions"))
    checkDimsInRange(v, *dims, in.rank(), "dimensions");
}

void verifyConstant(OpVerifier& v) {
  if (!v.expectCounts(0, 1)) return;
  const auto* value = v.requiredAttr<DenseElements>("value");
  if (!value) return;
  if (value->type != v.result(0))
    return (void)v.fail("value type " + value->type.str() + " differs from result type " +
                        v.result(0).str());
  if (!value->wellFormed())
    v.fail("value holds " + std::to_string(value->bytes.size()) + " bytes, " +
           (value->splat ? "a splat of " : "") + value->type.str() + " needs " +
           std::to_string(value->splat ? value->elementBytes() : value->type.byteSize()));
}

}  // namespace

void verifyShapeOp(OpVerifier& v) {
  switch (v.op().kind) {
    case OpKind::BroadcastInDim:
      return verifyBroadcastInDim(v);
    case OpKind::Reshape:
      return verifyReshape(v);
    case OpKind::Transpose:
      return verifyTranspose(v);
    case OpKind::Slice:
      return verifySlice(v);
    case OpKind::DynamicSlice:
      return verifyDynamicSlice(v);
    case OpKind::DynamicUpdateSlice:
      return verifyDynamicUpdateSlice(v);
    case OpKind::Concatenate:
      return verifyConcatenate(v);
    case OpKind::Pad:
      return verifyPad(v);
    case OpKind::Iota:
      return verifyIota(v);
    case OpKind::Reverse:
      return verifyReverse(v);
    case OpKind::Constant:
      return verifyConstant(v);
    default:
      return;
  }
}

}  // namespace jft::ir
