// Checks every plan must pass, written from the plan's contract (fusion.h)
// without the planner's own helpers: each op placed, only cheap ops copied,
// inputs and outputs exactly the crossing values, groups in an order where
// every input is made before it is read, one output shape per loop group,
// F/K shapes in reduction groups, sanitized unique names.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "fusion/fusion.h"
#include "fusion/ttir_support.h"
#include "ir/module.h"

namespace jft::fusion::testing {

inline bool copyable(const ir::Op& op) {
  switch (op.kind) {
    case ir::OpKind::Constant:
    case ir::OpKind::BroadcastInDim:
    case ir::OpKind::Reshape:
    case ir::OpKind::Iota:
    case ir::OpKind::Convert:
    case ir::OpKind::BitcastConvert:
      return true;
    default:
      return false;
  }
}

// Values an op reads: operands and what its nested regions use but do not
// define.
inline void readsOf(const ir::Region& region, std::set<ir::ValueId>& defined,
                    std::vector<ir::ValueId>& reads) {
  for (ir::ValueId a : region.args) defined.insert(a);
  for (const ir::Op& op : region.ops) {
    for (ir::ValueId v : op.operands)
      if (!defined.contains(v)) reads.push_back(v);
    for (const ir::Region& r : op.regions) {
      std::set<ir::ValueId> inner = defined;
      readsOf(r, inner, reads);
    }
    for (ir::ValueId v : op.results) defined.insert(v);
  }
}

inline std::vector<ir::ValueId> opReads(const ir::Op& op) {
  std::vector<ir::ValueId> reads = op.operands;
  for (const ir::Region& r : op.regions) {
    std::set<ir::ValueId> defined;
    readsOf(r, defined, reads);
  }
  std::vector<ir::ValueId> unique;
  for (ir::ValueId v : reads)
    if (std::find(unique.begin(), unique.end(), v) == unique.end()) unique.push_back(v);
  return unique;
}

// A constant whose elements all have one encoding.
inline bool splatConstant(const ir::Op& op) {
  if (op.kind != ir::OpKind::Constant) return false;
  const auto* value = ir::findAttrAs<ir::DenseElements>(op.attrs, "value");
  if (!value || value->bytes.empty()) return false;
  if (value->splat) return true;
  const size_t size =
      value->bytes.size() / static_cast<size_t>(value->type.numElements());
  for (size_t at = size; at < value->bytes.size(); at += size)
    if (std::memcmp(&value->bytes[at], value->bytes.data(), size) != 0) return false;
  return true;
}

inline std::vector<int64_t> nonUnit(const std::vector<int64_t>& dims) {
  std::vector<int64_t> out;
  for (int64_t d : dims)
    if (d != 1) out.push_back(d);
  return out;
}

// `elementwiseCopies`: the plan was made with PlanOptions::recompute_elementwise,
// so TTIR elementwise ops may be duplicated too.
inline void checkPlan(const ir::Module& m, const ir::Region& body, const Plan& plan,
                      bool elementwiseCopies = false) {
  const size_t n = body.ops.size() - (body.ops.back().kind == ir::OpKind::Return ? 1 : 0);
  std::set<ir::ValueId> returned;
  if (n < body.ops.size())
    returned.insert(body.ops.back().operands.begin(), body.ops.back().operands.end());
  std::map<ir::ValueId, size_t> def;
  for (size_t i = 0; i < n; ++i)
    for (ir::ValueId v : body.ops[i].results) def[v] = i;

  // Placement.
  std::vector<int> count(n, 0);
  for (const Fusion& f : plan.fusions) {
    EXPECT_TRUE(std::is_sorted(f.ops.begin(), f.ops.end())) << f.name;
    for (size_t i : f.ops) {
      ASSERT_LT(i, n) << f.name;
      ++count[i];
    }
  }
  for (size_t i = 0; i < n; ++i) {
    EXPECT_GE(count[i], 1) << "op " << i << " in no group";
    if (count[i] > 1) {
      EXPECT_TRUE(copyable(body.ops[i]) ||
                  (elementwiseCopies && isTtirElementwise(body.ops[i].kind)))
          << "op " << i << " (" << ir::opKindName(body.ops[i].kind) << ") in " << count[i]
          << " groups";
    }
  }

  // Inputs, outputs, order.
  std::map<ir::ValueId, size_t> made_by;  // value -> group listing it as output
  std::set<std::string> names;
  for (size_t k = 0; k < plan.fusions.size(); ++k) {
    const Fusion& f = plan.fusions[k];
    EXPECT_EQ(f.id, static_cast<int>(k));
    const std::string prefix = "fusion_" + std::to_string(k) + "_" + familyName(f.family);
    EXPECT_EQ(f.name.rfind(prefix, 0), 0u) << f.name;
    EXPECT_TRUE(std::all_of(f.name.begin(), f.name.end(), [](char c) {
      return std::isalnum(c) || c == '_';
    })) << f.name;
    EXPECT_TRUE(names.insert(f.name).second) << f.name;
    EXPECT_EQ(f.family == Family::kNone, f.route != Route::kTtir) << f.name;

    std::set<size_t> members(f.ops.begin(), f.ops.end());
    auto inside = [&](ir::ValueId v) {
      auto it = def.find(v);
      return it != def.end() && members.contains(it->second);
    };
    std::vector<ir::ValueId> expected_inputs;
    for (size_t i : f.ops)
      for (ir::ValueId v : opReads(body.ops[i]))
        if (!inside(v) && std::find(expected_inputs.begin(), expected_inputs.end(), v) ==
                              expected_inputs.end())
          expected_inputs.push_back(v);
    EXPECT_EQ(f.inputs, expected_inputs) << f.name;
    for (ir::ValueId v : f.inputs) {
      auto d = def.find(v);
      if (d == def.end()) continue;  // an argument
      if (f.route == Route::kTtir) {
        EXPECT_FALSE(splatConstant(body.ops[d->second]))
            << f.name << " reads a splat constant as an input";
      }
      auto maker = made_by.find(v);
      ASSERT_NE(maker, made_by.end())
          << f.name << " reads a value no earlier group wrote";
      EXPECT_LT(maker->second, k);
    }
    for (ir::ValueId v : f.outputs) {
      ASSERT_TRUE(inside(v)) << f.name << " outputs a value it does not define";
      bool read_outside = returned.contains(v);
      for (size_t i = 0; i < n; ++i)
        if (!members.contains(i)) {
          auto reads = opReads(body.ops[i]);
          if (std::find(reads.begin(), reads.end(), v) != reads.end())
            read_outside = true;
        }
      EXPECT_TRUE(read_outside) << f.name << " outputs a value only it reads";
      EXPECT_TRUE(made_by.emplace(v, k).second) << "two groups write one value";
    }
    if (f.family == Family::kLoop && !f.outputs.empty()) {
      for (ir::ValueId v : f.outputs)
        EXPECT_EQ(m.typeOf(v).dims, m.typeOf(f.outputs[0]).dims) << f.name;
    }
    if (f.family == Family::kReduction) {
      std::vector<int64_t> kept;
      for (size_t d = 0; d < f.reduce_shape.size(); ++d)
        if (std::find(f.reduced_dims.begin(), f.reduced_dims.end(),
                      static_cast<int64_t>(d)) == f.reduced_dims.end())
          kept.push_back(f.reduce_shape[d]);
      for (size_t i : f.ops) {
        if (body.ops[i].kind == ir::OpKind::Constant) continue;
        for (ir::ValueId v : body.ops[i].results) {
          const auto& dims = m.typeOf(v).dims;
          EXPECT_TRUE(dims == f.reduce_shape || nonUnit(dims) == nonUnit(kept))
              << f.name << " holds a value outside its reduction space";
        }
      }
    }
  }
  // Every value the return reads and the region computes is written by a group.
  for (ir::ValueId v : returned)
    if (def.contains(v)) {
      EXPECT_TRUE(made_by.contains(v)) << "returned value not written";
    }
}

inline void checkPlan(const ir::Module& m, const ir::Function& f, const Plan& plan,
                      bool elementwiseCopies = false) {
  checkPlan(m, f.body, plan, elementwiseCopies);
}

}  // namespace jft::fusion::testing
