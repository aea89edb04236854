#include "passes/integer_dot.h"

#include <numeric>
#include <utility>
#include <vector>

#include "ir/dense_elements.h"
#include "passes/op_emitter.h"

namespace jft::passes {
namespace {

constexpr int64_t kMaxElements = int64_t{1} << 31;

bool integerLike(ElementType t) {
  return ir::isInteger(t) || t == ElementType::PRED;
}

class IntegerDotLowering {
 public:
  explicit IntegerDotLowering(ir::Module& module) : module_(module) {}

  bool run() {
    return rewriteOps(module_, [&](const ir::Op& op, std::vector<ir::Op>& out) {
      return lower(op, out);
    });
  }

 private:
  // Converts and broadcasts one operand into `common`, its dim order[j]
  // landing at positions[j].
  ValueId spread(OpEmitter& e, ValueId value, const std::vector<int64_t>& order,
                 const std::vector<int64_t>& positions, const ir::Type& common) {
    if (e.typeOf(value).element != common.element)
      value = e.convert(value, common.element);
    // Operand dim order[j] lands at positions[j]; broadcast_in_dim reads the
    // operand in any dim order, so no transpose is materialised.
    std::vector<int64_t> map(order.size());
    for (size_t j = 0; j < order.size(); ++j)
      map[static_cast<size_t>(order[j])] = positions[j];
    std::vector<int64_t> identity(map.size());
    std::iota(identity.begin(), identity.end(), 0);
    if (e.typeOf(value) != common || map != identity)
      value = e.emit(OpKind::BroadcastInDim, {value}, common,
                     {{"broadcast_dimensions", map}});
    return value;
  }

  // XLA's result caster: a float product asked for an integer result is
  // computed in the operands' float type (f32 when they differ) and converted.
  bool computeInFloat(const ir::Op& op, ElementType element, std::vector<ir::Op>& out) {
    OpEmitter e(module_, op, out);
    std::vector<ValueId> operands = op.operands;
    for (ValueId& v : operands)
      if (e.typeOf(v).element != element) v = e.convert(v, element);
    const ir::Type result = module_.typeOf(op.results[0]);
    const ValueId product =
        e.emit(op.kind, operands, ir::Type::tensor(element, result.dims), op.attrs);
    e.giveId(e.convert(product, result.element), op.results[0]);
    return true;
  }

  bool lower(const ir::Op& op, std::vector<ir::Op>& out) {
    if (op.kind != OpKind::DotGeneral && op.kind != OpKind::Dot) return false;
    if (op.operands.size() != 2 || op.results.size() != 1) return false;
    const ir::Type lhs = module_.typeOf(op.operands[0]);
    const ir::Type rhs = module_.typeOf(op.operands[1]);
    const ir::Type result = module_.typeOf(op.results[0]);
    if (!lhs.isTensor() || !rhs.isTensor() || !result.isTensor()) return false;
    if (ir::isFloat(lhs.element) && ir::isFloat(rhs.element) &&
        ir::isInteger(result.element))
      return computeInFloat(
          op, lhs.element == rhs.element ? lhs.element : ElementType::F32, out);
    if (!integerLike(lhs.element) || !integerLike(rhs.element) ||
        !integerLike(result.element))
      return false;
    // A pred product is XLA's logical one: `and` multiplies, `or` sums.
    const bool logical = result.element == ElementType::PRED;

    std::vector<int64_t> lb, rb, lk, rk;
    if (op.kind == OpKind::Dot) {
      if (lhs.rank() < 1 || rhs.rank() < 1) return false;
      lk = {lhs.rank() - 1};
      rk = {0};
    } else {
      const auto* numbers =
          ir::findAttrAs<ir::DotDimensionNumbers>(op.attrs, "dot_dimension_numbers");
      if (numbers == nullptr) return false;
      lb = numbers->lhs_batching_dims;
      rb = numbers->rhs_batching_dims;
      lk = numbers->lhs_contracting_dims;
      rk = numbers->rhs_contracting_dims;
    }
    auto freeDims = [](int64_t rank, const std::vector<int64_t>& a,
                       const std::vector<int64_t>& b) {
      std::vector<bool> used(static_cast<size_t>(rank), false);
      for (int64_t d : a) used[static_cast<size_t>(d)] = true;
      for (int64_t d : b) used[static_cast<size_t>(d)] = true;
      std::vector<int64_t> free;
      for (int64_t d = 0; d < rank; ++d)
        if (!used[static_cast<size_t>(d)]) free.push_back(d);
      return free;
    };
    const std::vector<int64_t> lm = freeDims(lhs.rank(), lb, lk);
    const std::vector<int64_t> rn = freeDims(rhs.rank(), rb, rk);
    const size_t nb = lb.size(), nm = lm.size(), nn = rn.size(), nk = lk.size();
    auto extent = [](const ir::Type& t, const std::vector<int64_t>& ds) {
      int64_t p = 1;
      for (int64_t d : ds) p *= t.dims[static_cast<size_t>(d)];
      return p;
    };
    if (libraryComputes(lhs.element, rhs.element, result.element, extent(lhs, lm),
                        extent(rhs, rn), extent(lhs, lk)))
      return false;

    // Common shape [B..., M..., N..., K...].
    std::vector<int64_t> dims;
    for (int64_t d : lb) dims.push_back(lhs.dims[static_cast<size_t>(d)]);
    for (int64_t d : lm) dims.push_back(lhs.dims[static_cast<size_t>(d)]);
    for (int64_t d : rn) dims.push_back(rhs.dims[static_cast<size_t>(d)]);
    for (int64_t d : lk) dims.push_back(lhs.dims[static_cast<size_t>(d)]);
    int64_t total = 1;
    for (int64_t d : dims) {
      if (d != 0 && total > kMaxElements / d) return false;
      total *= d;
    }
    if (total > kMaxElements) return false;
    const ir::Type common = ir::Type::tensor(result.element, dims);

    std::vector<int64_t> lorder = lb, rorder = rb;
    lorder.insert(lorder.end(), lm.begin(), lm.end());
    lorder.insert(lorder.end(), lk.begin(), lk.end());
    rorder.insert(rorder.end(), rn.begin(), rn.end());
    rorder.insert(rorder.end(), rk.begin(), rk.end());
    std::vector<int64_t> lpos, rpos, kdims;
    for (size_t i = 0; i < nb + nm; ++i) lpos.push_back(static_cast<int64_t>(i));
    for (size_t i = 0; i < nb; ++i) rpos.push_back(static_cast<int64_t>(i));
    for (size_t i = 0; i < nn; ++i) rpos.push_back(static_cast<int64_t>(nb + nm + i));
    for (size_t i = 0; i < nk; ++i) {
      const auto k = static_cast<int64_t>(nb + nm + nn + i);
      lpos.push_back(k);
      rpos.push_back(k);
      kdims.push_back(k);
    }

    OpEmitter e(module_, op, out);
    const ValueId a = spread(e, op.operands[0], lorder, lpos, common);
    const ValueId b = spread(e, op.operands[1], rorder, rpos, common);
    const ValueId product = e.binary(logical ? OpKind::And : OpKind::Multiply, a, b);
    if (nk == 0) {
      e.giveId(product, op.results[0]);
      return true;
    }
    const ir::Type scalar = ir::Type::scalar(result.element);
    const ValueId init = e.constant(result.element, {}, 0);
    std::vector<ir::Region> combiner;
    combiner.push_back(e.binaryRegion(logical ? OpKind::Or : OpKind::Add, scalar));
    const ValueId sum = e.emit(OpKind::Reduce, {product, init}, result,
                               {{"dimensions", kdims}}, std::move(combiner));
    e.giveId(sum, op.results[0]);
    return true;
  }

  ir::Module& module_;
};

}  // namespace

bool libraryComputes(ElementType lhs, ElementType rhs, ElementType result, int64_t m,
                     int64_t n, int64_t k) {
  return lhs == ElementType::I8 && rhs == ElementType::I8 && result == ElementType::I32 &&
         m % 4 == 0 && n % 4 == 0 && k % 4 == 0;
}

bool lowerIntegerDots(ir::Module& module) {
  return IntegerDotLowering(module).run();
}

}  // namespace jft::passes
