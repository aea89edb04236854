#include "passes/simplify.h"

#include <optional>

#include "passes/known_values.h"
#include "passes/literal_elements.h"
#include "passes/local_rewriter.h"

namespace jft::passes {
namespace {

using ir::OpKind;
using ir::ValueId;

bool isIntegral(ir::ElementType element) {
  return ir::isInteger(element) || ir::isPred(element);
}

// Does the splat `c` leave x unchanged as the right operand of op `kind`?
bool isRightIdentity(OpKind kind, const SplatValue& c) {
  const bool integral = isIntegral(c.element);
  switch (kind) {
    case OpKind::Multiply:
      return (integral && !ir::isPred(c.element) && isIntegerSplatOf(c, 1)) ||
             isFloatOne(c);
    case OpKind::Add:
      return (integral && !ir::isPred(c.element) && isIntegerSplatOf(c, 0)) ||
             isFloatZero(c, /*negative=*/true);
    case OpKind::Subtract:
      return (integral && isIntegerSplatOf(c, 0)) || isFloatZero(c, /*negative=*/false);
    case OpKind::Maximum:
      return isFloatInfinity(c, /*negative=*/true);
    case OpKind::Minimum:
      return isFloatInfinity(c, /*negative=*/false);
    default:
      return false;
  }
}

bool isCommutative(OpKind kind) {
  return kind == OpKind::Multiply || kind == OpKind::Add || kind == OpKind::Maximum ||
         kind == OpKind::Minimum;
}

bool isIdempotent(OpKind kind) {
  return kind == OpKind::And || kind == OpKind::Or || kind == OpKind::Minimum ||
         kind == OpKind::Maximum;
}

class Simplifier : public LocalRewriter {
 public:
  bool rewrite(RewriteContext& context, ir::Op& op) override {
    if (op.results.size() != 1) return false;
    if (!context.typeOf(op.results[0]).isTensor()) return false;
    if (std::optional<ValueId> same = equivalentValue(context, op);
        same && context.typeOf(*same) == context.typeOf(op.results[0])) {
      context.replaceOp(op, {*same});
      return true;
    }
    if (partThroughSelect(context, op)) return true;
    return foldSelfCompare(context, op);
  }

 private:
  std::optional<ValueId> equivalentValue(const RewriteContext& context,
                                         const ir::Op& op) {
    const std::vector<ValueId>& in = op.operands;
    if (in.size() == 2 && isIdempotent(op.kind) && in[0] == in[1]) return in[0];
    if (in.size() == 2) {
      if (std::optional<SplatValue> c = knownSplat(context, in[1]))
        if (isRightIdentity(op.kind, *c)) return in[0];
      if (isCommutative(op.kind))
        if (std::optional<SplatValue> c = knownSplat(context, in[0]))
          if (isRightIdentity(op.kind, *c)) return in[1];
    }
    if (op.kind == OpKind::Select && in.size() == 3) return selected(context, in);
    // real(complex(a, b)) -> a, imag(complex(a, b)) -> b: parts pass unchanged.
    if ((op.kind == OpKind::Real || op.kind == OpKind::Imag) && in.size() == 1) {
      const ir::Op* inner = context.definingOp(in[0]);
      if (inner && inner->kind == OpKind::Complex && inner->operands.size() == 2)
        return inner->operands[op.kind == OpKind::Real ? 0 : 1];
    }
    if ((op.kind == OpKind::Negate || op.kind == OpKind::Not) && in.size() == 1) {
      const ir::Op* inner = context.definingOp(in[0]);
      if (inner && inner->kind == op.kind && inner->operands.size() == 1)
        return inner->operands[0];
    }
    return std::nullopt;
  }

  std::optional<ValueId> selected(const RewriteContext& context,
                                  const std::vector<ValueId>& in) {
    if (in[1] == in[2]) return in[1];
    // select(p, true, false) is p itself when p has the result's shape.
    if (context.typeOf(in[0]) == context.typeOf(in[1])) {
      std::optional<SplatValue> on_true = knownSplat(context, in[1]);
      std::optional<SplatValue> on_false = knownSplat(context, in[2]);
      if (on_true && on_false && isIntegerSplatOf(*on_true, 1) &&
          isIntegerSplatOf(*on_false, 0) && ir::isPred(on_true->element))
        return in[0];
    }
    std::optional<SplatValue> predicate = knownSplat(context, in[0]);
    if (!predicate || !ir::isPred(predicate->element)) return std::nullopt;
    return predicate->bits != 0 ? in[1] : in[2];
  }

  // real(select(p, x, y)) -> select(p, real(x), real(y)), imag alike: a
  // select of complex values read by parts (complex max/min reduced by parts)
  // selects the parts, which real(complex(a, b)) then folds.
  bool partThroughSelect(RewriteContext& context, ir::Op& op) {
    if ((op.kind != OpKind::Real && op.kind != OpKind::Imag) || op.operands.size() != 1)
      return false;
    const ir::Op* select = context.definingOp(op.operands[0]);
    if (select == nullptr || select->kind != OpKind::Select ||
        select->operands.size() != 3)
      return false;
    const std::vector<ValueId> in = select->operands;  // insertBefore may move it
    const ValueId on_true = partOf(context, op, in[1]);
    const ValueId on_false = partOf(context, op, in[2]);
    op.kind = OpKind::Select;
    op.operands = {in[0], on_true, on_false};
    op.attrs.clear();
    return true;
  }

  // The part `take` (a real or imag op) reads, of `value`: a complex op's
  // operand, else a new part op.
  ValueId partOf(RewriteContext& context, const ir::Op& take, ValueId value) {
    const bool real = take.kind == OpKind::Real;
    if (const ir::Op* whole = context.definingOp(value);
        whole && whole->kind == OpKind::Complex && whole->operands.size() == 2)
      return whole->operands[real ? 0 : 1];
    ir::Op part;
    part.kind = take.kind;
    part.operands = {value};
    part.results = {context.module().newValue(ir::Type::tensor(
        context.typeOf(take.results[0]).element, context.typeOf(value).dims))};
    part.loc = take.loc;
    return context.insertBefore(std::move(part)).results[0];
  }

  // compare(x, x) on integers is decided by the direction alone.
  bool foldSelfCompare(RewriteContext& context, ir::Op& op) {
    if (op.kind != OpKind::Compare || op.operands.size() != 2 ||
        op.operands[0] != op.operands[1])
      return false;
    if (!isIntegral(context.typeOf(op.operands[0]).element)) return false;
    const auto* direction =
        ir::findAttrAs<ir::ComparisonDirection>(op.attrs, "comparison_direction");
    if (!direction) return false;
    const bool truth = *direction == ir::ComparisonDirection::EQ ||
                       *direction == ir::ComparisonDirection::LE ||
                       *direction == ir::ComparisonDirection::GE;
    const ir::Type result_type = context.typeOf(op.results[0]);
    const ir::Type scalar = ir::Type::scalar(result_type.element);
    if (result_type == scalar) {
      op.kind = OpKind::Constant;
      op.operands.clear();
      op.attrs = {{"value", splatLiteral(scalar, truth ? 1 : 0)}};
      return true;
    }
    // A splat of any size costs one scalar constant and a broadcast.
    ir::Op constant;
    constant.kind = OpKind::Constant;
    constant.results = {context.module().newValue(scalar)};
    constant.attrs = {{"value", splatLiteral(scalar, truth ? 1 : 0)}};
    constant.loc = op.loc;
    const ValueId splat = context.insertBefore(std::move(constant)).results[0];
    op.kind = OpKind::BroadcastInDim;
    op.operands = {splat};
    op.attrs = {{"broadcast_dimensions", std::vector<int64_t>{}}};
    return true;
  }
};

}  // namespace

bool simplifyAlgebra(ir::Module& module) {
  Simplifier simplifier;
  return RewriteContext(module).run(simplifier);
}

}  // namespace jft::passes
