#include "passes/canonicalize.h"

#include <optional>
#include <vector>

#include "passes/integer_fold.h"
#include "passes/known_values.h"
#include "passes/literal_elements.h"
#include "passes/local_rewriter.h"

namespace jft::passes {
namespace {

using ir::OpKind;
using ir::ValueId;

const std::vector<int64_t>* intsAttr(const ir::Op& op, std::string_view name) {
  return ir::findAttrAs<std::vector<int64_t>>(op.attrs, name);
}

bool isIdentityPermutation(const std::vector<int64_t>& dims) {
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] != static_cast<int64_t>(i)) return false;
  return true;
}

bool allEqualTo(const std::vector<int64_t>* values, int64_t expected) {
  if (!values) return false;
  for (int64_t v : *values)
    if (v != expected) return false;
  return true;
}

class Canonicalizer : public LocalRewriter {
 public:
  bool rewrite(RewriteContext& context, ir::Op& op) override {
    if (sortOfSingletons(context, op)) return true;
    if (op.results.size() != 1) return false;
    if (std::optional<ValueId> same = noOpSource(context, op);
        same && context.typeOf(*same) == context.typeOf(op.results[0])) {
      context.replaceOp(op, {*same});
      return true;
    }
    if (shortenChain(context, op)) {
      if (std::optional<ValueId> same = noOpSource(context, op))
        context.replaceOp(op, {*same});
      return true;
    }
    if (zeroProduct(context, op) || uninitializedBuffer(context, op) ||
        placementAnnotation(context, op))
      return true;
    if (foldDimensionSize(context, op)) return true;
    return foldConstant(context, op);
  }

 private:
  // A sort along a dimension of extent 0 or 1 has nothing to reorder: every
  // result is its operand (`jnp.insert` sorts its one inserted index).
  static bool sortOfSingletons(RewriteContext& context, ir::Op& op) {
    if (op.kind != OpKind::Sort || op.operands.empty() ||
        op.operands.size() != op.results.size())
      return false;
    const auto* dim = ir::findAttrAs<int64_t>(op.attrs, "dimension");
    const ir::Type& in = context.typeOf(op.operands[0]);
    if (!dim || !in.isTensor()) return false;
    const int64_t d = *dim < 0 ? *dim + in.rank() : *dim;
    if (d < 0 || d >= in.rank() || in.dims[static_cast<size_t>(d)] > 1) return false;
    for (size_t i = 0; i < op.operands.size(); ++i)
      if (context.typeOf(op.operands[i]) != context.typeOf(op.results[i])) return false;
    context.replaceOp(op, op.operands);
    return true;
  }

  // A product over an empty contraction is all zeros, and one with an empty
  // result computes nothing: either becomes a zero constant, so no library
  // call is asked for a product of size 0. A convolution with an empty
  // operand sums nothing into every output element (a window over an empty
  // input reads only padding, which is zero).
  static bool zeroProduct(const RewriteContext& context, ir::Op& op) {
    if (op.kind != OpKind::DotGeneral && op.kind != OpKind::Dot &&
        op.kind != OpKind::Convolution)
      return false;
    if (op.operands.size() != 2) return false;
    const ir::Type& result = context.typeOf(op.results[0]);
    const ir::Type& lhs = context.typeOf(op.operands[0]);
    if (!result.isTensor() || !lhs.isTensor()) return false;
    bool empty = result.numElements() == 0;
    if (op.kind == OpKind::Convolution) {
      empty = empty || lhs.numElements() == 0 ||
              context.typeOf(op.operands[1]).numElements() == 0;
    } else if (op.kind == OpKind::Dot) {
      empty = empty || (lhs.rank() > 0 && lhs.dims.back() == 0);
    } else if (const auto* numbers = ir::findAttrAs<ir::DotDimensionNumbers>(
                   op.attrs, "dot_dimension_numbers")) {
      for (int64_t dim : numbers->lhs_contracting_dims)
        if (dim >= 0 && dim < lhs.rank() && lhs.dims[static_cast<size_t>(dim)] == 0)
          empty = true;
    }
    if (!empty) return false;
    becomeZeros(op, result);
    return true;
  }

  // custom_call @AllocateBuffer() (lax.empty) and @CreateBuffer() (a pinned
  // jax.empty_ref): a buffer whose contents are unspecified. Zeros are one valid content,
  // and a splat constant costs nothing until something reads it.
  static bool uninitializedBuffer(const RewriteContext& context, ir::Op& op) {
    if (op.kind != OpKind::CustomCall || !op.operands.empty() || op.results.size() != 1)
      return false;
    const auto* target = ir::findAttrAs<std::string>(op.attrs, "call_target_name");
    if (target == nullptr || (*target != "AllocateBuffer" && *target != "CreateBuffer"))
      return false;
    const ir::Type& result = context.typeOf(op.results[0]);
    if (!result.isTensor()) return false;
    becomeZeros(op, result);
    return true;
  }

  // custom_call @annotate_device_placement (device_put to another memory
  // space, compute_on, host offloading) and @Pin / @Unpin (a pinned jax.new_ref
  // and its freeze) mark where a value's buffer lives; its value is its operand. Buffers
  // stay in device memory here (no host offloading), so the annotation is its operand.
  static bool placementAnnotation(RewriteContext& context, ir::Op& op) {
    if (op.kind != OpKind::CustomCall || op.operands.size() != 1 ||
        op.results.size() != 1)
      return false;
    const auto* target = ir::findAttrAs<std::string>(op.attrs, "call_target_name");
    if (target == nullptr || (*target != "annotate_device_placement" &&
                              *target != "Pin" && *target != "Unpin"))
      return false;
    if (context.typeOf(op.operands[0]) != context.typeOf(op.results[0])) return false;
    context.replaceOp(op, {op.operands[0]});
    return true;
  }

  static void becomeZeros(ir::Op& op, const ir::Type& type) {
    op.kind = OpKind::Constant;
    op.operands.clear();
    op.regions.clear();
    op.attrs = {
        {"value", ir::DenseElements::makeSplat(
                      type, std::vector<uint8_t>(ir::storageBytes(type.element), 0))}};
  }

  // Shapes are static: get_dimension_size is the dim's extent as an i32.
  bool foldDimensionSize(RewriteContext& context, ir::Op& op) {
    if (op.kind != OpKind::GetDimensionSize || op.operands.size() != 1) return false;
    const auto* dim = ir::findAttrAs<int64_t>(op.attrs, "dimension");
    const ir::Type& in = context.typeOf(op.operands[0]);
    const ir::Type& out = context.typeOf(op.results[0]);
    if (!dim || *dim < 0 || *dim >= in.rank() ||
        out != ir::Type::scalar(ir::ElementType::I32))
      return false;
    const int64_t extent = in.dims[static_cast<size_t>(*dim)];
    op.kind = OpKind::Constant;
    op.operands.clear();
    op.attrs = {{"value", splatLiteral(out, static_cast<uint64_t>(extent))}};
    return true;
  }

  // The operand an op passes through unchanged, if it does nothing.
  std::optional<ValueId> noOpSource(const RewriteContext& context, const ir::Op& op) {
    if (op.operands.empty()) return std::nullopt;
    if (op.kind == OpKind::GetTupleElement) return tupleElement(context, op);
    const ValueId source = op.operands[0];
    const ir::Type& in = context.typeOf(source);
    const ir::Type& out = context.typeOf(op.results[0]);
    if (in != out) return std::nullopt;
    switch (op.kind) {
      case OpKind::Reshape:
      case OpKind::Convert:
        return source;
      case OpKind::Transpose:
      case OpKind::BroadcastInDim: {
        const char* name =
            op.kind == OpKind::Transpose ? "permutation" : "broadcast_dimensions";
        const std::vector<int64_t>* dims = intsAttr(op, name);
        if (dims && isIdentityPermutation(*dims)) return source;
        return std::nullopt;
      }
      case OpKind::Slice: {
        const std::vector<int64_t>* start = intsAttr(op, "start_indices");
        const std::vector<int64_t>* limit = intsAttr(op, "limit_indices");
        const std::vector<int64_t>* strides = intsAttr(op, "strides");
        if (allEqualTo(start, 0) && limit && *limit == in.dims && allEqualTo(strides, 1))
          return source;
        return std::nullopt;
      }
      case OpKind::Concatenate:
        if (op.operands.size() == 1) return source;
        return std::nullopt;
      case OpKind::Pad:
        if (allEqualTo(intsAttr(op, "edge_padding_low"), 0) &&
            allEqualTo(intsAttr(op, "edge_padding_high"), 0) &&
            allEqualTo(intsAttr(op, "interior_padding"), 0))
          return source;
        return std::nullopt;
      case OpKind::Reverse: {
        const std::vector<int64_t>* dims = intsAttr(op, "dimensions");
        if (!dims) return std::nullopt;
        for (int64_t dim : *dims)
          if (dim < 0 || dim >= in.rank() || in.dims[dim] > 1) return std::nullopt;
        return source;
      }
      default:
        return std::nullopt;
    }
  }

  // get_tuple_element(tuple(a0, a1, ...), i) is ai.
  static std::optional<ValueId> tupleElement(const RewriteContext& context,
                                             const ir::Op& op) {
    const ir::Op* tuple = context.definingOp(op.operands[0]);
    const int64_t* index = ir::findAttrAs<int64_t>(op.attrs, "index");
    if (!tuple || tuple->kind != OpKind::Tuple || !index || *index < 0 ||
        *index >= static_cast<int64_t>(tuple->operands.size()))
      return std::nullopt;
    return tuple->operands[*index];
  }

  // reshape(reshape(x)) -> reshape(x), and transposes and broadcasts of
  // their own kind composed into one. The result may do nothing (the caller
  // checks).
  bool shortenChain(RewriteContext& context, ir::Op& op) {
    if (op.kind != OpKind::Reshape && op.kind != OpKind::Transpose &&
        op.kind != OpKind::BroadcastInDim)
      return false;
    if (op.operands.size() != 1) return false;
    const ir::Op* inner = context.definingOp(op.operands[0]);
    if (!inner || inner->kind != op.kind || inner->operands.size() != 1) return false;
    const ValueId source = inner->operands[0];
    if (op.kind == OpKind::Reshape) {
      op.operands[0] = source;
      return true;
    }
    const char* name =
        op.kind == OpKind::Transpose ? "permutation" : "broadcast_dimensions";
    const std::vector<int64_t>* outer_dims = intsAttr(op, name);
    const std::vector<int64_t>* inner_dims = intsAttr(*inner, name);
    if (!outer_dims || !inner_dims) return false;
    std::optional<std::vector<int64_t>> composed =
        op.kind == OpKind::Transpose ? compose(*inner_dims, *outer_dims)
                                     : compose(*outer_dims, *inner_dims);
    if (!composed) return false;
    op.operands[0] = source;
    for (auto& [attr_name, value] : op.attrs)
      if (attr_name == name) value = *composed;
    return true;
  }

  // first[second[i]] for each i; nullopt when an index is out of range.
  // Transposes: result dim i is the inner result's dim outer[i], which is
  // source dim inner[outer[i]]. Broadcasts: source dim i goes to the inner
  // result's dim inner[i], which goes to result dim outer[inner[i]].
  static std::optional<std::vector<int64_t>> compose(const std::vector<int64_t>& first,
                                                     const std::vector<int64_t>& second) {
    std::vector<int64_t> composed;
    for (int64_t index : second) {
      if (index < 0 || index >= static_cast<int64_t>(first.size())) return std::nullopt;
      composed.push_back(first[index]);
    }
    return composed;
  }

  bool foldConstant(RewriteContext& context, ir::Op& op) {
    if (op.operands.empty() || !op.regions.empty()) return false;
    const ir::Type& result_type = context.typeOf(op.results[0]);
    if (!result_type.isTensor() || result_type.numElements() > kMaxFoldedElements)
      return false;
    std::vector<ir::DenseElements> literals;
    for (ValueId operand : op.operands) {
      std::optional<ir::DenseElements> literal =
          knownSmallLiteral(context, operand, kMaxFoldedElements);
      if (!literal) return false;
      literals.push_back(std::move(*literal));
    }
    std::optional<ir::DenseElements> folded = foldIntegerOp(op, literals, result_type);
    if (!folded) return false;
    op.kind = OpKind::Constant;
    op.operands.clear();
    op.attrs = {{"value", std::move(*folded)}};
    return true;
  }
};

}  // namespace

bool canonicalize(ir::Module& module) {
  Canonicalizer canonicalizer;
  return RewriteContext(module).run(canonicalizer);
}

}  // namespace jft::passes
