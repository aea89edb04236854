// An op's attributes as the elemental emitters of both backends read them:
// integer lists in any of their encodings, and the index ops' attributes
// checked against the operand once, so that each backend only turns them
// into its own index arithmetic. Errors are UNIMPLEMENTED naming the op.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/module.h"
#include "support/status.h"

namespace jft::codegen::common {

// An integer-list attribute, from array<i64>, a list of integers, or a dense
// integer literal (sign-extended); empty when absent or not a list.
std::vector<int64_t> intsAttr(const ir::Op& op, std::string_view name);

// "stablehlo.<op>", as messages name an op.
std::string opName(const ir::Op& op);

// A constant's value, which must be a splat with elements: a literal of
// several values is a fusion input, never computed.
StatusOr<const ir::DenseElements*> splatValue(const ir::Op& op);

// The result dim of each operand dim of a broadcast_in_dim (a broadcast's
// operand dims are the trailing ones), each inside the result's rank.
StatusOr<std::vector<size_t>> broadcastDims(const ir::Op& op, size_t operand_rank,
                                            size_t result_rank);

// A transpose's permutation, one entry per operand dim, each inside the rank.
StatusOr<std::vector<size_t>> permutation(const ir::Op& op, size_t rank);

struct SliceAttrs {
  std::vector<int64_t> start, strides;  // strides default to 1
};
StatusOr<SliceAttrs> sliceAttrs(const ir::Op& op, size_t rank);

struct PadAttrs {
  std::vector<int64_t> low, high, interior;  // interior defaults to 0
};
StatusOr<PadAttrs> padAttrs(const ir::Op& op, size_t rank);

// A dynamic_slice's slice_sizes, with one start operand per operand dim.
StatusOr<std::vector<int64_t>> dynamicSliceSizes(const ir::Op& op, size_t rank);

// OK when a dynamic slice's start index of type `element` is an integer.
Status checkStartIndex(const ir::Op& op, ir::ElementType element);

// A reshape's dims matched in runs of equal element counts: result dims
// [out_begin, out_end) hold the elements of operand dims [in_begin, in_end).
// Only a group with several non-unit dims on one side regroups elements.
struct ReshapeGroup {
  size_t out_begin = 0, out_end = 0, in_begin = 0, in_end = 0;
  std::vector<size_t> out_big, in_big;  // the group's dims of extent != 1
};
StatusOr<std::vector<ReshapeGroup>> reshapeGroups(const ir::Op& op,
                                                  const std::vector<int64_t>& out,
                                                  const std::vector<int64_t>& in);

}  // namespace jft::codegen::common
