// complex_sort: a sort of complex keys (JAX's lexicographic comparator, as
// jnp.sort / argsort emit it) becomes a sort of their parts: the operands
// split in place, the comparator reads the part arguments directly once
// simplify folds real/imag of the rebuilt values, and the complex results
// keep their ids.
#include "passes/complex_sort.h"

#include <gtest/gtest.h>

#include "pass_test_util.h"
#include "passes/pipeline.h"

namespace jft::passes {
namespace {

using namespace testing;

Type c64(std::vector<int64_t> dims = {}) {
  return tensor(ElementType::C64, dims);
}

ValueId lessThan(ir::Builder& b, ValueId x, ValueId y) {
  return b.op1(OpKind::Compare, {x, y}, pred(),
               {{"comparison_direction", ir::ComparisonDirection::LT},
                {"compare_type", ir::ComparisonType::TOTALORDER}});
}

// sort(x: complex, iota) by (real, imag) lexicographically, the positions
// following: the argsort JAX emits for a complex array.
ir::Module complexArgsort() {
  ir::Module m;
  ir::Builder b(m);
  const std::vector<int64_t> dims{4, 6};
  auto a = b.beginFunction("main", {c64(dims)}, {c64(dims), i32(dims)});
  const ValueId positions = b.op1(OpKind::Iota, {}, i32(dims), {{"iota_dimension", 1}});
  auto args = b.beginRegion({c64(), c64(), i32(), i32()});
  const ValueId lr = b.op1(OpKind::Real, {args[0]}, f32());
  const ValueId rr = b.op1(OpKind::Real, {args[1]}, f32());
  const ValueId li = b.op1(OpKind::Imag, {args[0]}, f32());
  const ValueId ri = b.op1(OpKind::Imag, {args[1]}, f32());
  const ValueId same = b.op1(OpKind::Compare, {lr, rr}, pred(),
                             {{"comparison_direction", ir::ComparisonDirection::EQ},
                              {"compare_type", ir::ComparisonType::TOTALORDER}});
  const ValueId tie = b.op1(OpKind::And, {same, lessThan(b, li, ri)}, pred());
  b.ret({b.op1(OpKind::Or, {lessThan(b, lr, rr), tie}, pred())});
  ir::Region body = b.endRegion();
  auto sorted = b.op(OpKind::Sort, {a[0], positions}, {c64(dims), i32(dims)},
                     {{"dimension", int64_t{1}}, {"is_stable", true}}, {std::move(body)});
  b.ret(sorted);
  b.endFunction();
  return m;
}

const ir::Op* findOp(const ir::Region& region, OpKind kind) {
  for (const ir::Op& op : region.ops)
    if (op.kind == kind) return &op;
  return nullptr;
}

TEST(ComplexSort, OperandsSplitIntoPartsAndResultsAreRebuilt) {
  ir::Module m = complexArgsort();
  const ir::Region& body = m.functions[0].body;
  const ValueId input = m.functions[0].body.args[0];
  const std::vector<ValueId> results = findOp(body, OpKind::Sort)->results;
  ASSERT_TRUE(splitComplexSorts(m));
  ASSERT_TRUE(ir::verifyModule(m).isOk()) << ir::verifyModule(m).message();
  const ir::Op& sort = *findOp(body, OpKind::Sort);
  ASSERT_EQ(sort.operands.size(), 3u);
  EXPECT_EQ(m.typeOf(sort.operands[0]), f32({4, 6}));
  EXPECT_EQ(m.typeOf(sort.operands[1]), f32({4, 6}));
  EXPECT_EQ(m.typeOf(sort.operands[2]), i32({4, 6}));
  // real(x), imag(x) in that order, the positions untouched.
  const ir::Op* re = nullptr;
  const ir::Op* im = nullptr;
  for (const ir::Op& op : body.ops)
    for (size_t i = 0; i < op.results.size(); ++i) {
      if (op.results[i] == sort.operands[0]) re = &op;
      if (op.results[i] == sort.operands[1]) im = &op;
    }
  ASSERT_TRUE(re && im);
  EXPECT_EQ(re->kind, OpKind::Real);
  EXPECT_EQ(im->kind, OpKind::Imag);
  EXPECT_EQ(re->operands[0], input);
  EXPECT_EQ(im->operands[0], input);
  // Six comparator arguments: real part, imaginary part, positions.
  EXPECT_EQ(sort.regions[0].args.size(), 6u);
  // The positions keep their id; the complex result is complex(parts).
  EXPECT_EQ(sort.results[2], results[1]);
  const ir::Op* whole = nullptr;
  for (const ir::Op& op : body.ops)
    if (op.kind == OpKind::Complex && op.results[0] == results[0]) whole = &op;
  ASSERT_NE(whole, nullptr);
  EXPECT_EQ(whole->operands[0], sort.results[0]);
  EXPECT_EQ(whole->operands[1], sort.results[1]);
}

TEST(ComplexSort, ThePipelineLeavesAComparatorOfRealPartsOnly) {
  ir::Module m = complexArgsort();
  PipelineOptions options;
  options.verify = true;
  ASSERT_TRUE(runPasses(m, options).isOk());
  const ir::Op& sort = *findOp(m.functions[0].body, OpKind::Sort);
  const ir::Region& cmp = sort.regions[0];
  for (const ir::Op& op : cmp.ops) {
    EXPECT_NE(op.kind, OpKind::Complex);
    EXPECT_NE(op.kind, OpKind::Real);
    EXPECT_NE(op.kind, OpKind::Imag);
  }
  // The lexicographic order reads the real lanes (args 0, 1) and, on a tie,
  // the imaginary ones (args 2, 3).
  std::vector<bool> read(cmp.args.size(), false);
  for (const ir::Op& op : cmp.ops)
    for (ValueId v : op.operands)
      for (size_t i = 0; i < cmp.args.size(); ++i) read[i] = read[i] || v == cmp.args[i];
  EXPECT_TRUE(read[0] && read[1] && read[2] && read[3]);
}

TEST(ComplexSort, RealSortsAreLeftAlone) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({8})}, {f32({8})});
  auto args = b.beginRegion({f32(), f32()});
  b.ret({lessThan(b, args[0], args[1])});
  ir::Region body = b.endRegion();
  b.ret(b.op(OpKind::Sort, {a[0]}, {f32({8})},
             {{"dimension", int64_t{0}}, {"is_stable", false}}, {std::move(body)}));
  b.endFunction();
  EXPECT_FALSE(splitComplexSorts(m));
}

}  // namespace
}  // namespace jft::passes
