#include "fusion/attention_form.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "fusion/fusion.h"
#include "fusion/ttir_support.h"
#include "ir/float_text.h"
#include "passes/literal_elements.h"

namespace jft::fusion {
namespace {

using ir::OpKind;

// "k REL q + offset": which keys a row keeps, as a mask of positions says
// (REL one of LE, LT, GE, GT).
struct KeyBound {
  ir::ComparisonDirection rel = ir::ComparisonDirection::LE;
  int64_t offset = 0;
};

// An integer index along one dim of a value's own shape, plus a constant.
struct Affine {
  int64_t dim = 0;
  int64_t offset = 0;
};

// "idx[a] rel idx[b] + offset" over the dims of a boolean value.
struct Relation {
  int64_t a = 0, b = 0;
  ir::ComparisonDirection rel = ir::ComparisonDirection::LE;
  int64_t offset = 0;
};

class AttentionMatcher {
 public:
  AttentionMatcher(const ir::Module& module, const ir::Region& region,
                   const UseGraph& uses, std::string* why)
      : module_(module), region_(region), uses_(uses), why_(why) {}

  std::optional<AttentionForm> match(size_t pv_at) {
    const ir::Op& pv = region_.ops[pv_at];
    if (pv.kind != OpKind::DotGeneral) return fail("not a dot_general");
    std::string reason;
    std::optional<MatmulForm> pv_form = matmulFormOf(module_, pv, &reason);
    if (!pv_form) return fail(reason);
    form_.pv_dot = pv_at;
    form_.pv = *pv_form;
    own(pv_at);

    // p' = convert(p) or p itself.
    ir::ValueId p = pv.operands[0];
    long at = definedHere(p, OpKind::Convert);
    if (at >= 0 && isF32(region_.ops[at].operands[0])) {
      own(at);
      p = region_.ops[at].operands[0];
    }
    if (!isF32(p)) return fail("the probabilities are not f32");
    // p = e / broadcast(l).
    const ir::Op* div = opDefining(p, OpKind::Divide);
    if (div == nullptr) return fail("the pv dot does not read a softmax's divide");
    const ir::ValueId e = div->operands[0];
    const std::optional<ir::ValueId> l = rowBroadcastSource(div->operands[1]);
    if (!l) return fail("the softmax divides by something other than its row sums");
    // l = reduce_sum(e).
    const std::optional<ir::ValueId> summed = rowReduce(*l, OpKind::Add, 0.0);
    if (!summed) return fail("the softmax's denominator is not a row sum");
    if (*summed != e) return fail("the softmax sums another value than it divides");
    // e = exp(x - broadcast(m)).
    const ir::Op* exp = opDefining(e, OpKind::Exponential);
    if (exp == nullptr) return fail("the softmax's numerator is not an exponential");
    const ir::Op* sub = opDefining(exp->operands[0], OpKind::Subtract);
    if (sub == nullptr) return fail("the exponential does not read x - max");
    const ir::ValueId x = sub->operands[0];
    const std::optional<ir::ValueId> m = rowBroadcastSource(sub->operands[1]);
    if (!m) return fail("the softmax subtracts something other than its row maxima");
    // m = max(-inf, reduce_max(x)) (JAX's stop_gradient-ed initial) or the reduce.
    ir::ValueId reduced = *m;
    if (const ir::Op* floor = opDefining(*m, OpKind::Maximum)) {
      const int side =
          isSplatOf(floor->operands[0], -std::numeric_limits<double>::infinity())   ? 1
          : isSplatOf(floor->operands[1], -std::numeric_limits<double>::infinity()) ? 0
                                                                                    : -1;
      if (side < 0)
        return fail("the row maximum is clamped to something other than -inf");
      side_values_.push_back(floor->operands[1 - side]);
      reduced = floor->operands[side];
    }
    const std::optional<ir::ValueId> maxed =
        rowReduce(reduced, OpKind::Maximum, -std::numeric_limits<double>::infinity());
    if (!maxed) return fail("the softmax's shift is not a row maximum");
    if (*maxed != x) return fail("the softmax takes the maximum of another value");
    if (!isF32(x)) return fail("the softmax is not computed in f32");
    form_.logits = x;

    if (!scoreChain(x) || !shapes() || !readersInside() || !sideOps())
      return std::nullopt;
    form_.causal_offset = causalOffset();
    std::sort(form_.own.begin(), form_.own.end());
    std::sort(form_.copied.begin(), form_.copied.end());
    std::sort(form_.score_ops.begin(), form_.score_ops.end());
    return form_;
  }

 private:
  std::optional<AttentionForm> fail(std::string reason) {
    if (why_ != nullptr && why_->empty()) *why_ = std::move(reason);
    return std::nullopt;
  }
  bool refuse(std::string reason) {
    fail(std::move(reason));
    return false;
  }

  void own(size_t at) {
    if (std::find(form_.own.begin(), form_.own.end(), at) == form_.own.end())
      form_.own.push_back(at);
  }

  const ir::Type& typeOf(ir::ValueId v) const { return module_.typeOf(v); }
  bool isF32(ir::ValueId v) const {
    return typeOf(v).isTensor() && typeOf(v).element == ir::ElementType::F32;
  }

  // The index of the op of `kind` defining `v` in the region (and own it),
  // or -1.
  long definedHere(ir::ValueId v, OpKind kind) const {
    const long at = uses_.definingOp(v);
    if (at < 0 || region_.ops[static_cast<size_t>(at)].kind != kind) return -1;
    return at;
  }
  const ir::Op* opDefining(ir::ValueId v, OpKind kind) {
    const long at = definedHere(v, kind);
    if (at < 0) return nullptr;
    own(static_cast<size_t>(at));
    return &region_.ops[static_cast<size_t>(at)];
  }

  // The value of a splat constant `v` is (through broadcasts and converts),
  // as a double.
  std::optional<double> splatValue(ir::ValueId v) const {
    for (;;) {
      const long at = uses_.definingOp(v);
      if (at < 0) return std::nullopt;
      const ir::Op& op = region_.ops[static_cast<size_t>(at)];
      if (op.kind == OpKind::BroadcastInDim || op.kind == OpKind::Reshape ||
          (op.kind == OpKind::Convert &&
           typeOf(op.operands[0]).element == typeOf(v).element)) {
        v = op.operands[0];
        continue;
      }
      if (!isSplatConstant(op)) return std::nullopt;
      const auto* literal = ir::findAttrAs<ir::DenseElements>(op.attrs, "value");
      const ir::ElementType element = typeOf(v).element;
      if (ir::isFloat(element) && !ir::isComplex(element))
        return ir::decodeFloat(element, passes::elementBits(*literal, 0));
      if (ir::isComplex(element)) return std::nullopt;
      return static_cast<double>(passes::elementInteger(*literal, 0));
    }
  }
  bool isSplatOf(ir::ValueId v, double value) const {
    const std::optional<double> s = splatValue(v);
    return s && (*s == value || (std::isnan(value) && std::isnan(*s)));
  }

  // `v` of the scores' rank made from a value of the row shape (the scores
  // without their last dim) by broadcasts along that last dim: that value.
  // The broadcast ops are the pattern's own.
  std::optional<ir::ValueId> rowBroadcastSource(ir::ValueId v) {
    const size_t rank = typeOf(v).dims.size();
    if (rank < 2) return std::nullopt;
    // Where each dim of the current value sits in `v`.
    std::vector<int64_t> place(rank);
    for (size_t d = 0; d < rank; ++d) place[d] = static_cast<int64_t>(d);
    ir::ValueId at = v;
    std::vector<size_t> chain;
    for (;;) {
      const long def = uses_.definingOp(at);
      if (def < 0) return std::nullopt;
      const ir::Op& op = region_.ops[static_cast<size_t>(def)];
      if (op.kind != OpKind::BroadcastInDim) break;
      const auto* dims =
          ir::findAttrAs<std::vector<int64_t>>(op.attrs, "broadcast_dimensions");
      if (dims == nullptr) return std::nullopt;
      std::vector<int64_t> next;
      for (int64_t d : *dims) next.push_back(place[static_cast<size_t>(d)]);
      place = std::move(next);
      chain.push_back(static_cast<size_t>(def));
      at = op.operands[0];
    }
    // The row value: rank - 1 dims placed at 0 .. rank - 2, each the
    // full extent of `v` there (a row value, not a slice of one).
    const ir::Type& source = typeOf(at);
    if (source.dims.size() != rank - 1 || place.size() != rank - 1) return std::nullopt;
    for (size_t d = 0; d + 1 < rank; ++d)
      if (place[d] != static_cast<int64_t>(d) || source.dims[d] != typeOf(v).dims[d])
        return std::nullopt;
    for (size_t c : chain) own(c);
    return at;
  }

  // The operand that reduce `v` folds with `combiner` along the last dim
  // from a splat `init`; its init constant is a side value.
  std::optional<ir::ValueId> rowReduce(ir::ValueId v, OpKind combiner, double init) {
    const long at = definedHere(v, OpKind::Reduce);
    if (at < 0) return std::nullopt;
    const ir::Op& op = region_.ops[static_cast<size_t>(at)];
    if (op.operands.size() != 2 || op.results.size() != 1 || op.regions.size() != 1)
      return std::nullopt;
    const ir::ValueId operand = op.operands[0];
    const size_t rank = typeOf(operand).dims.size();
    const auto* dims = ir::findAttrAs<std::vector<int64_t>>(op.attrs, "dimensions");
    if (dims == nullptr || dims->size() != 1 ||
        (*dims)[0] != static_cast<int64_t>(rank) - 1)
      return std::nullopt;
    const ir::Region& body = op.regions[0];
    if (body.ops.size() != 2 || body.ops[0].kind != combiner ||
        body.ops[1].kind != OpKind::Return || body.args.size() != 2)
      return std::nullopt;
    const auto& in = body.ops[0].operands;
    if (in.size() != 2 || !((in[0] == body.args[0] && in[1] == body.args[1]) ||
                            (in[0] == body.args[1] && in[1] == body.args[0])))
      return std::nullopt;
    if (!isSplatOf(op.operands[1], init)) return std::nullopt;
    own(static_cast<size_t>(at));
    side_values_.push_back(op.operands[1]);
    return operand;
  }

  // Whether `v` is computed from positions only: iota, splat constants,
  // broadcasts, reshapes and elementwise ops of them (memoised).
  bool positionOnly(ir::ValueId v) {
    auto known = position_only_.find(v);
    if (known != position_only_.end()) return known->second;
    position_only_[v] = false;  // no cycles in SSA; a safe answer meanwhile
    const long at = uses_.definingOp(v);
    bool ok = false;
    if (at >= 0) {
      const ir::Op& op = region_.ops[static_cast<size_t>(at)];
      const bool complex = typeOf(v).isTensor() && ir::isComplex(typeOf(v).element);
      if (!complex && op.regions.empty()) {
        if (op.kind == OpKind::Constant) {
          ok = isSplatConstant(op);
        } else if (op.kind == OpKind::Iota) {
          ok = true;
        } else if (op.kind == OpKind::BroadcastInDim || op.kind == OpKind::Reshape ||
                   isTtirElementwise(op.kind)) {
          ok = op.results.size() == 1;
          for (ir::ValueId operand : op.operands) ok = ok && positionOnly(operand);
        }
      }
    }
    position_only_[v] = ok;
    return ok;
  }

  // From x back to s: elementwise ops each reading the chain once, their
  // other operands positional; the first op past them is the qk dot.
  bool scoreChain(ir::ValueId x) {
    const std::vector<int64_t>& dims = typeOf(x).dims;
    ir::ValueId at = x;
    for (;;) {
      const long def = uses_.definingOp(at);
      if (def < 0) return refuse("the scores do not come from a dot_general");
      const ir::Op& op = region_.ops[static_cast<size_t>(def)];
      if (op.kind == OpKind::DotGeneral) {
        form_.qk_dot = static_cast<size_t>(def);
        form_.scores = at;
        own(form_.qk_dot);
        return true;
      }
      if (!isTtirElementwise(op.kind) || op.results.size() != 1 ||
          typeOf(op.results[0]).dims != dims)
        return refuse("the scores pass through " + std::string(ir::opKindName(op.kind)) +
                      ", not an elementwise op of positions");
      std::optional<ir::ValueId> chain;
      for (ir::ValueId operand : op.operands) {
        if (positionOnly(operand)) {
          side_values_.push_back(operand);
          continue;
        }
        if (chain && *chain != operand)
          return refuse("an op on the scores reads a tensor other than the scores");
        chain = operand;
      }
      if (!chain) return refuse("the softmax reads positions only");
      if (typeOf(*chain).dims != dims) return refuse("the scores change shape");
      own(static_cast<size_t>(def));
      form_.score_ops.push_back(static_cast<size_t>(def));
      at = *chain;
    }
  }

  // One free dim each side of the qk dot, one contracting dim; the pv dot
  // batched as the scores, contracting their last (key) dim.
  bool shapes() {
    const ir::Op& qk = region_.ops[form_.qk_dot];
    const ir::Op& pv = region_.ops[form_.pv_dot];
    std::string reason;
    std::optional<MatmulForm> qk_form = matmulFormOf(module_, qk, &reason);
    if (!qk_form) return refuse(reason);
    form_.qk = *qk_form;
    const auto* qn =
        ir::findAttrAs<ir::DotDimensionNumbers>(qk.attrs, "dot_dimension_numbers");
    const auto* pn =
        ir::findAttrAs<ir::DotDimensionNumbers>(pv.attrs, "dot_dimension_numbers");
    const size_t nb = qn->lhs_batching_dims.size();
    if (qn->lhs_contracting_dims.size() != 1 ||
        typeOf(qk.operands[0]).dims.size() != nb + 2 ||
        typeOf(qk.operands[1]).dims.size() != nb + 2)
      return refuse("the qk dot is not batch x one query dim x one contracting dim");
    const std::vector<int64_t>& s = typeOf(form_.scores).dims;
    std::vector<int64_t> batch_dims(nb);
    for (size_t d = 0; d < nb; ++d) batch_dims[d] = static_cast<int64_t>(d);
    if (pn->lhs_batching_dims != batch_dims || pn->lhs_contracting_dims.size() != 1 ||
        pn->lhs_contracting_dims[0] != static_cast<int64_t>(nb) + 1 ||
        pn->rhs_batching_dims.size() != nb ||
        typeOf(pv.operands[1]).dims.size() != nb + 2)
      return refuse("the pv dot does not contract the scores' key dim per batch item");
    if (s.size() != nb + 2) return refuse("scores of an unexpected rank");
    if (form_.qk.m != form_.pv.m || form_.pv.k != form_.qk.n ||
        form_.pv.batch != form_.qk.batch)
      return refuse("the two dots disagree on the batch, query or key extents");
    // The kernel holds whole rows of Q and of the output in registers.
    if (form_.qk.k > kMaxHeadDim || form_.pv.n > kMaxHeadDim)
      return refuse("a head dim past " + std::to_string(kMaxHeadDim));
    // Batch items run along grid y.
    if (form_.qk.batch > kMaxGridY) return refuse("more batch items than grid y holds");
    return true;
  }

  // Nothing outside the pattern reads s, x, m, e, l or p (the pv dot's
  // result is the kernel's output).
  bool readersInside() {
    const std::set<size_t> mine(form_.own.begin(), form_.own.end());
    for (size_t at : form_.own) {
      if (at == form_.pv_dot) continue;
      if (uses_.anyResultReturned(at))
        return refuse("an intermediate of the attention is returned");
      for (size_t user : uses_.opUsers(at))
        if (!mine.contains(user))
          return refuse("an intermediate of the attention (" +
                        std::string(ir::opKindName(region_.ops[at].kind)) +
                        ") has a reader outside it");
    }
    return true;
  }

  // The positional ops the pattern reads: its own when nothing else reads
  // them, else copied (which the plan allows for cheap ops and splat
  // constants only).
  bool sideOps() {
    std::set<size_t> side;
    std::vector<ir::ValueId> work = side_values_;
    while (!work.empty()) {
      const ir::ValueId v = work.back();
      work.pop_back();
      const long at = uses_.definingOp(v);
      if (at < 0) return refuse("a positional value that is not computed here");
      if (!side.insert(static_cast<size_t>(at)).second) continue;
      for (ir::ValueId operand : region_.ops[static_cast<size_t>(at)].operands)
        work.push_back(operand);
    }
    std::set<size_t> inside(form_.own.begin(), form_.own.end());
    inside.insert(side.begin(), side.end());
    // Outside readers make an op copied, and whatever it reads too (a copy
    // reads its operands in the kernel; they stay the kernel's own only when
    // nothing else needs them).
    std::set<size_t> copied;
    for (auto it = side.rbegin(); it != side.rend(); ++it) {
      const size_t at = *it;
      bool outside = uses_.anyResultReturned(at);
      for (size_t user : uses_.opUsers(at))
        outside = outside || !inside.contains(user) || copied.contains(user);
      if (!outside) continue;
      const ir::Op& op = region_.ops[at];
      const bool copyable =
          isSplatConstant(op) ||
          isOneOf(op.kind, {OpKind::BroadcastInDim, OpKind::Reshape, OpKind::Iota,
                            OpKind::Convert, OpKind::BitcastConvert});
      if (!copyable)
        return refuse("a mask op (" + std::string(ir::opKindName(op.kind)) +
                      ") is read outside the attention");
      copied.insert(at);
    }
    for (size_t at : side)
      if (copied.contains(at))
        form_.copied.push_back(at);
      else
        own(at);
    return true;
  }

  static bool isOneOf(OpKind kind, std::initializer_list<OpKind> kinds) {
    return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
  }

  // An integer index along one dim of `v`, plus a constant.
  std::optional<Affine> affine(ir::ValueId v) const {
    const long at = uses_.definingOp(v);
    if (at < 0 || !typeOf(v).isTensor() || !ir::isInteger(typeOf(v).element))
      return std::nullopt;
    const ir::Op& op = region_.ops[static_cast<size_t>(at)];
    switch (op.kind) {
      case OpKind::Iota: {
        const auto* dim = ir::findAttrAs<int64_t>(op.attrs, "iota_dimension");
        if (dim == nullptr) return std::nullopt;
        return Affine{*dim, 0};
      }
      case OpKind::BroadcastInDim: {
        std::optional<Affine> inner = affine(op.operands[0]);
        const auto* dims =
            ir::findAttrAs<std::vector<int64_t>>(op.attrs, "broadcast_dimensions");
        if (!inner || dims == nullptr) return std::nullopt;
        return Affine{(*dims)[static_cast<size_t>(inner->dim)], inner->offset};
      }
      case OpKind::Convert:
        // Widening only: the index is kept exactly.
        if (ir::bitWidth(typeOf(op.operands[0]).element) >
            ir::bitWidth(typeOf(v).element))
          return std::nullopt;
        return affine(op.operands[0]);
      case OpKind::Add:
      case OpKind::Subtract: {
        const int sign = op.kind == OpKind::Add ? 1 : -1;
        for (int side = 0; side < 2; ++side) {
          std::optional<Affine> index = affine(op.operands[side]);
          std::optional<double> c = splatValue(op.operands[1 - side]);
          if (!index || !c || (side == 1 && sign < 0)) continue;
          index->offset += sign * static_cast<int64_t>(*c);
          return index;
        }
        return std::nullopt;
      }
      default:
        return std::nullopt;
    }
  }

  // A boolean `v` as "idx[a] rel idx[b] + offset" over its dims.
  std::optional<Relation> relation(ir::ValueId v) const {
    const long at = uses_.definingOp(v);
    if (at < 0) return std::nullopt;
    const ir::Op& op = region_.ops[static_cast<size_t>(at)];
    switch (op.kind) {
      case OpKind::Compare: {
        const auto* dir =
            ir::findAttrAs<ir::ComparisonDirection>(op.attrs, "comparison_direction");
        const std::optional<Affine> a = affine(op.operands[0]),
                                    b = affine(op.operands[1]);
        if (dir == nullptr || !a || !b || a->dim == b->dim) return std::nullopt;
        if (ir::isUnsignedInteger(typeOf(op.operands[0]).element)) return std::nullopt;
        if (*dir == ir::ComparisonDirection::EQ || *dir == ir::ComparisonDirection::NE)
          return std::nullopt;
        return Relation{a->dim, b->dim, *dir, b->offset - a->offset};
      }
      case OpKind::BroadcastInDim: {
        std::optional<Relation> inner = relation(op.operands[0]);
        const auto* dims =
            ir::findAttrAs<std::vector<int64_t>>(op.attrs, "broadcast_dimensions");
        if (!inner || dims == nullptr) return std::nullopt;
        inner->a = (*dims)[static_cast<size_t>(inner->a)];
        inner->b = (*dims)[static_cast<size_t>(inner->b)];
        return inner;
      }
      case OpKind::Select:
        // select(r, true, false) is r (what jnp.tril of ones lowers to).
        if (isSplatOf(op.operands[1], 1) && isSplatOf(op.operands[2], 0))
          return relation(op.operands[0]);
        return std::nullopt;
      case OpKind::And:
        for (int side = 0; side < 2; ++side)
          if (isSplatOf(op.operands[1 - side], 1)) return relation(op.operands[side]);
        return std::nullopt;
      default:
        return std::nullopt;
    }
  }

  // When the last op before the softmax masks keys past q + c (c >= 0) with
  // a fill exp makes exactly 0: c.
  std::optional<int64_t> causalOffset() const {
    const long at = uses_.definingOp(form_.logits);
    if (at < 0) return std::nullopt;
    const ir::Op& op = region_.ops[static_cast<size_t>(at)];
    if (op.kind != OpKind::Select) return std::nullopt;
    // Which branch keeps the scores; the other must be the fill.
    const bool positional_true =
        position_only_.contains(op.operands[1]) && position_only_.at(op.operands[1]);
    const int fill_side = positional_true ? 1 : 2;
    const std::optional<double> fill = splatValue(op.operands[fill_side]);
    if (!fill || !(*fill <= kSkippableFill)) return std::nullopt;
    std::optional<Relation> r = relation(op.operands[0]);
    const int64_t q = static_cast<int64_t>(typeOf(form_.scores).dims.size()) - 2;
    const int64_t k = q + 1;
    if (!r) return std::nullopt;
    KeyBound kept;
    if (r->a == k && r->b == q) {
      kept = {r->rel, r->offset};
    } else if (r->a == q && r->b == k) {
      kept = {ir::mirrored(r->rel), -r->offset};
    } else {
      return std::nullopt;
    }
    // The mask keeps where it is true when the scores are the true branch.
    if (positional_true) kept.rel = ir::negated(kept.rel);
    if (kept.rel == ir::ComparisonDirection::LT)
      kept = {ir::ComparisonDirection::LE, kept.offset - 1};
    if (kept.rel != ir::ComparisonDirection::LE || kept.offset < 0) return std::nullopt;
    return kept.offset;
  }

  const ir::Module& module_;
  const ir::Region& region_;
  const UseGraph& uses_;
  std::string* why_;
  AttentionForm form_;
  std::vector<ir::ValueId> side_values_;
  std::map<ir::ValueId, bool> position_only_;
};

}  // namespace

std::optional<AttentionForm> attentionFormOf(const ir::Module& module,
                                             const ir::Region& region,
                                             const UseGraph& uses, size_t pv_dot,
                                             std::string* why) {
  if (why != nullptr) why->clear();
  return AttentionMatcher(module, region, uses, why).match(pv_dot);
}

}  // namespace jft::fusion
