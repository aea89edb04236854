// Helpers for planner tests on hand-built IR: types, literals, reduces, and
// where an op landed in a plan.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fusion/fusion.h"
#include "ir/builder.h"
#include "ir/verifier.h"

namespace jft::fusion::testing {

using ir::ElementType;
using ir::OpKind;
using ir::Type;
using ir::ValueId;

inline Type f32(std::vector<int64_t> dims = {}) {
  return Type::tensor(ElementType::F32, dims);
}
inline Type i32(std::vector<int64_t> dims = {}) {
  return Type::tensor(ElementType::I32, dims);
}
inline Type pred(std::vector<int64_t> dims = {}) {
  return Type::tensor(ElementType::PRED, dims);
}

inline ValueId splat(ir::Builder& b, const Type& type, double value) {
  return b.constant(
      ir::denseFromValues(type, std::vector<double>(type.numElements(), value)));
}

inline ValueId broadcast(ir::Builder& b, ValueId v, const Type& to,
                         std::vector<int64_t> dims) {
  return b.op1(OpKind::BroadcastInDim, {v}, to, {{"broadcast_dimensions", dims}});
}

// reduce(x, init) over `dims` with a scalar `combine` (add, maximum, ...).
inline ValueId reduce(ir::Builder& b, ValueId x, ValueId init, std::vector<int64_t> dims,
                      const Type& result, OpKind combine = OpKind::Add) {
  const Type scalar = Type::scalar(b.typeOf(x).element);
  auto args = b.beginRegion({scalar, scalar});
  b.ret({b.op1(combine, {args[0], args[1]}, scalar)});
  ir::Region body = b.endRegion();
  return b.op1(OpKind::Reduce, {x, init}, result, {{"dimensions", dims}},
               {std::move(body)});
}

// Index of the op defining `value` in the entry's body.
inline size_t opOf(const ir::Function& f, ValueId value) {
  for (size_t i = 0; i < f.body.ops.size(); ++i)
    for (ValueId r : f.body.ops[i].results)
      if (r == value) return i;
  ADD_FAILURE() << "no op defines %v" << value;
  return 0;
}

// The groups holding op `op`, in plan order.
inline std::vector<int> groupsOf(const Plan& plan, size_t op) {
  std::vector<int> out;
  for (const Fusion& f : plan.fusions)
    for (size_t i : f.ops)
      if (i == op) out.push_back(f.id);
  return out;
}

// The one group holding op `op`; -1 when it is in none or several.
inline int groupOf(const Plan& plan, size_t op) {
  std::vector<int> groups = groupsOf(plan, op);
  return groups.size() == 1 ? groups[0] : -1;
}

inline void expectVerifies(const ir::Module& m) {
  Status s = ir::verifyModule(m);
  ASSERT_TRUE(s.isOk()) << s.toString();
}

}  // namespace jft::fusion::testing
