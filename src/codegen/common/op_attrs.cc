#include "codegen/common/op_attrs.h"

#include <algorithm>
#include <span>

#include "ir/op_kind.h"

namespace jft::codegen::common {
namespace {

// Integer list attributes hold an entry per dimension or so; a dense literal
// claiming more (a huge splat) is not read as one.
constexpr int64_t kMaxListElements = int64_t{1} << 20;

}  // namespace

std::vector<int64_t> intsAttr(const ir::Op& op, std::string_view name) {
  const ir::Attribute* a = ir::findAttr(op.attrs, name);
  if (!a) return {};
  if (a->is<std::vector<int64_t>>()) return a->as<std::vector<int64_t>>();
  std::vector<int64_t> out;
  if (a->is<ir::AttrList>()) {
    for (const ir::Attribute& e : a->as<ir::AttrList>())
      if (e.is<int64_t>()) out.push_back(e.as<int64_t>());
    return out;
  }
  if (a->is<ir::DenseElements>()) {
    const ir::DenseElements& d = a->as<ir::DenseElements>();
    const int64_t size = ir::storageBytes(d.type.element);
    if (!d.wellFormed() || d.numElements() > kMaxListElements || size > 8) return out;
    for (int64_t i = 0; i < d.numElements(); ++i) {
      const std::span<const uint8_t> bytes = d.element(i);
      uint64_t bits = 0;
      for (int64_t b = 0; b < size; ++b) bits |= uint64_t{bytes[b]} << (8 * b);
      if (size < 8 && ir::isSignedInteger(d.type.element) && (bits >> (8 * size - 1)) & 1)
        bits |= ~uint64_t{0} << (8 * size);
      out.push_back(static_cast<int64_t>(bits));
    }
  }
  return out;
}

std::string opName(const ir::Op& op) {
  return "stablehlo." + std::string(ir::opKindName(op.kind));
}

StatusOr<const ir::DenseElements*> splatValue(const ir::Op& op) {
  const auto* value = ir::findAttrAs<ir::DenseElements>(op.attrs, "value");
  if (!value) return unimplemented("stablehlo.constant without a dense value");
  if (!value->wellFormed() || value->numElements() == 0)
    return unimplemented("stablehlo.constant " + value->type.str() + " without elements");
  if (!value->allEqual())
    return unimplemented("stablehlo.constant " + value->type.str() +
                         ": a literal that is not a splat must be a fusion input");
  return value;
}

namespace {

// `list` (an attribute naming `size` dimensions, each below `bound`) as
// indices; UNIMPLEMENTED "<op>: bad <what>" otherwise.
StatusOr<std::vector<size_t>> dimIndices(const ir::Op& op,
                                         const std::vector<int64_t>& list, size_t size,
                                         size_t bound, const char* what) {
  if (list.size() != size) return unimplemented(opName(op) + ": bad " + what);
  std::vector<size_t> dims;
  for (int64_t d : list) {
    if (d < 0 || static_cast<size_t>(d) >= bound)
      return unimplemented(opName(op) + ": bad " + what);
    dims.push_back(static_cast<size_t>(d));
  }
  return dims;
}

}  // namespace

StatusOr<std::vector<size_t>> broadcastDims(const ir::Op& op, size_t operand_rank,
                                            size_t result_rank) {
  std::vector<int64_t> map = intsAttr(op, "broadcast_dimensions");
  if (op.kind == ir::OpKind::Broadcast) {
    const size_t lead = result_rank - std::min(result_rank, operand_rank);
    map.clear();
    for (size_t i = 0; i < operand_rank; ++i)
      map.push_back(static_cast<int64_t>(lead + i));
  }
  return dimIndices(op, map, operand_rank, result_rank, "broadcast dimensions");
}

StatusOr<std::vector<size_t>> permutation(const ir::Op& op, size_t rank) {
  return dimIndices(op, intsAttr(op, "permutation"), rank, rank, "permutation");
}

StatusOr<SliceAttrs> sliceAttrs(const ir::Op& op, size_t rank) {
  SliceAttrs a{intsAttr(op, "start_indices"), intsAttr(op, "strides")};
  if (a.strides.empty()) a.strides.assign(rank, 1);
  if (a.start.size() != rank || a.strides.size() != rank)
    return unimplemented(opName(op) + ": bad slice attributes");
  return a;
}

StatusOr<PadAttrs> padAttrs(const ir::Op& op, size_t rank) {
  PadAttrs a{intsAttr(op, "edge_padding_low"), intsAttr(op, "edge_padding_high"),
             intsAttr(op, "interior_padding")};
  if (a.interior.empty()) a.interior.assign(rank, 0);
  if (a.low.size() != rank || a.high.size() != rank || a.interior.size() != rank)
    return unimplemented(opName(op) + ": bad padding attributes");
  return a;
}

StatusOr<std::vector<int64_t>> dynamicSliceSizes(const ir::Op& op, size_t rank) {
  std::vector<int64_t> sizes = intsAttr(op, "slice_sizes");
  if (sizes.size() != rank || op.operands.size() != 1 + rank)
    return unimplemented(opName(op) + ": bad operands or slice_sizes");
  return sizes;
}

Status checkStartIndex(const ir::Op& op, ir::ElementType element) {
  if (!ir::isInteger(element))
    return unimplemented(opName(op) + ": start index of type " +
                         std::string(ir::elementTypeName(element)));
  return Status::ok();
}

StatusOr<std::vector<ReshapeGroup>> reshapeGroups(const ir::Op& op,
                                                  const std::vector<int64_t>& out,
                                                  const std::vector<int64_t>& in) {
  std::vector<ReshapeGroup> groups;
  size_t i = 0, j = 0;
  while (i < out.size() || j < in.size()) {
    ReshapeGroup g;
    g.out_begin = i;
    g.in_begin = j;
    int64_t po = 1, pi = 1;
    if (i < out.size()) po *= out[i++];
    if (j < in.size()) pi *= in[j++];
    while (po != pi) {
      if (po < pi && i < out.size()) {
        po *= out[i++];
      } else if (j < in.size()) {
        pi *= in[j++];
      } else {
        return internalError(opName(op) + ": element counts differ");
      }
    }
    g.out_end = i;
    g.in_end = j;
    for (size_t k = g.out_begin; k < i; ++k)
      if (out[k] != 1) g.out_big.push_back(k);
    for (size_t k = g.in_begin; k < j; ++k)
      if (in[k] != 1) g.in_big.push_back(k);
    groups.push_back(std::move(g));
  }
  return groups;
}

}  // namespace jft::codegen::common
