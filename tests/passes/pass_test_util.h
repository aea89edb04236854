// Helpers for pass tests: types, literals and views of a function's ops, so
// each expectation reads as the hand-written IR it checks.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/builder.h"
#include "ir/printer.h"
#include "ir/verifier.h"

namespace jft::passes::testing {

using ir::ElementType;
using ir::OpKind;
using ir::Type;
using ir::ValueId;

inline Type tensor(ElementType e, std::vector<int64_t> dims = {}) {
  return Type::tensor(e, std::move(dims));
}
inline Type f32(std::vector<int64_t> dims = {}) {
  return tensor(ElementType::F32, dims);
}
inline Type i32(std::vector<int64_t> dims = {}) {
  return tensor(ElementType::I32, dims);
}
inline Type i8(std::vector<int64_t> dims = {}) {
  return tensor(ElementType::I8, dims);
}
inline Type pred(std::vector<int64_t> dims = {}) {
  return tensor(ElementType::PRED, dims);
}

inline ir::NamedAttrs ints(const std::string& name, std::vector<int64_t> values) {
  return {{name, values}};
}

// A splat constant of `type` (f32/f64/integer/pred) holding `value`.
inline ValueId splat(ir::Builder& b, const Type& type, double value) {
  return b.constant(
      ir::denseFromValues(type, std::vector<double>(type.numElements(), value)));
}

// The kinds of a region's ops, in order.
inline std::vector<OpKind> kindsOf(const ir::Region& region) {
  std::vector<OpKind> kinds;
  for (const ir::Op& op : region.ops) kinds.push_back(op.kind);
  return kinds;
}

inline const ir::Function& mainOf(const ir::Module& m) {
  return *m.findFunction("main");
}

// The values the function returns.
inline std::vector<ValueId> returned(const ir::Function& f) {
  return f.body.ops.back().operands;
}

// The op defining `value` among the function's top-level ops; nullptr for
// arguments.
inline const ir::Op* definer(const ir::Function& f, ValueId value) {
  for (const ir::Op& op : f.body.ops)
    for (ValueId r : op.results)
      if (r == value) return &op;
  return nullptr;
}

inline void expectVerifies(const ir::Module& m) {
  Status s = ir::verifyModule(m);
  EXPECT_TRUE(s.isOk()) << s.toString() << "\n" << ir::printModule(m);
}

}  // namespace jft::passes::testing
