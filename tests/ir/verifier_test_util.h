// Helpers for verifier tests: one-function modules built in a few lines and
// assertions on the status the verifier returns.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "ir/builder.h"
#include "ir/verifier.h"

namespace jft::ir::testing {

inline Type tensorOf(ElementType e, std::vector<int64_t> dims) {
  return Type::tensor(e, std::move(dims));
}
inline Type f32(std::vector<int64_t> dims = {}) {
  return tensorOf(ElementType::F32, dims);
}
inline Type f64(std::vector<int64_t> dims = {}) {
  return tensorOf(ElementType::F64, dims);
}
inline Type i32(std::vector<int64_t> dims = {}) {
  return tensorOf(ElementType::I32, dims);
}
inline Type i64(std::vector<int64_t> dims = {}) {
  return tensorOf(ElementType::I64, dims);
}
inline Type i8(std::vector<int64_t> dims = {}) {
  return tensorOf(ElementType::I8, dims);
}
inline Type pred(std::vector<int64_t> dims = {}) {
  return tensorOf(ElementType::PRED, dims);
}
inline Type c64(std::vector<int64_t> dims = {}) {
  return tensorOf(ElementType::C64, dims);
}

using BodyFn = std::function<std::vector<ValueId>(Builder&, const std::vector<ValueId>&)>;

// A module whose public @main takes `args`, runs `body` and returns what it
// returns (its result types follow). Ops are located at zoo.py:17:20.
inline Module buildMain(const std::vector<Type>& args, const BodyFn& body) {
  Module m;
  Builder b(m);
  b.setLoc(b.fileLoc("zoo.py", 17, 20));
  auto values = b.beginFunction("main", args, {});
  std::vector<ValueId> returned = body(b, values);
  b.ret(returned);
  Function& main = b.endFunction();
  for (ValueId v : returned) main.result_types.push_back(m.typeOf(v));
  main.result_attrs.resize(returned.size());
  return m;
}

inline Status verifyMain(const std::vector<Type>& args, const BodyFn& body) {
  return verifyModule(buildMain(args, body));
}

// A one-op body: the op of `kind` over all arguments with one result.
inline BodyFn oneOp(OpKind kind, Type result, NamedAttrs attrs = {}) {
  return [=](Builder& b, const std::vector<ValueId>& args) -> std::vector<ValueId> {
    return {b.op1(kind, args, result, attrs)};
  };
}

// A region taking scalars of `types` and returning op(kind) over its first
// two arguments (the usual reduce/scatter combiner), or its `returned` args.
inline Region combiner(Builder& b, const std::vector<Type>& types, OpKind kind) {
  auto args = b.beginRegion(types);
  std::vector<ValueId> out;
  const size_t n = types.size() / 2;
  for (size_t i = 0; i < n; ++i)
    out.push_back(b.op1(kind, {args[i], args[n + i]}, types[i]));
  b.ret(out);
  return b.endRegion();
}

}  // namespace jft::ir::testing

#define EXPECT_VALID(expr)                   \
  do {                                       \
    ::jft::Status s_ = (expr);               \
    EXPECT_TRUE(s_.isOk()) << s_.toString(); \
  } while (0)

// The status is INVALID_ARGUMENT and its message contains `text`.
#define EXPECT_INVALID(expr, text)                                              \
  do {                                                                          \
    ::jft::Status s_ = (expr);                                                  \
    EXPECT_EQ(s_.code(), ::jft::StatusCode::kInvalidArgument) << s_.toString(); \
    EXPECT_NE(s_.message().find(text), std::string::npos)                       \
        << "message: " << s_.message() << "\nexpected to contain: " << (text);  \
  } while (0)
