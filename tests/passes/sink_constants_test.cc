// sink_constants: JAX hoists a function's constants to its top, so a sort
// comparator inside a `case` branch (jax.scipy.stats.rankdata) or a reduce
// combiner reads splat constants defined outside its region, which the sort
// and reduction emitters cannot; each such region gets its own copies.
#include "passes/sink_constants.h"

#include <functional>
#include <unordered_set>

#include "pass_test_util.h"

namespace jft::passes {
namespace {

using namespace testing;

// Every value a region (with its nested regions) reads but does not define.
std::unordered_set<ValueId> capturedBy(const ir::Region& region) {
  std::unordered_set<ValueId> defined(region.args.begin(), region.args.end());
  std::unordered_set<ValueId> read;
  std::function<void(const ir::Region&)> walk = [&](const ir::Region& r) {
    defined.insert(r.args.begin(), r.args.end());
    for (const ir::Op& op : r.ops) {
      read.insert(op.operands.begin(), op.operands.end());
      defined.insert(op.results.begin(), op.results.end());
      for (const ir::Region& inner : op.regions) walk(inner);
    }
  };
  walk(region);
  std::unordered_set<ValueId> captured;
  for (ValueId id : read)
    if (!defined.contains(id)) captured.insert(id);
  return captured;
}

// main(keys, index) = (case index of {sort(keys) by (x == 0 ? 0 : x) < y,
// keys}, reduce(keys, max(acc, 2))), 0 and 2 defined at the top.
ir::Module hoistedConstants() {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({4}), i32()}, {f32({4}), f32()});
  ValueId zero = splat(b, f32(), 0.0);
  ValueId two = splat(b, f32(), 2.0);

  b.beginRegion({});
  auto cmp = b.beginRegion({f32(), f32()});
  ValueId is_zero = b.op1(OpKind::Compare, {cmp[0], zero}, pred(),
                          {{"comparison_direction", ir::ComparisonDirection::EQ}});
  ValueId x = b.op1(OpKind::Select, {is_zero, zero, cmp[0]}, f32());
  b.ret({b.op1(OpKind::Compare, {x, cmp[1]}, pred(),
               {{"comparison_direction", ir::ComparisonDirection::LT}})});
  ir::Region comparator = b.endRegion();
  ValueId sorted =
      b.op1(OpKind::Sort, {a[0]}, f32({4}),
            {{"dimension", int64_t{0}}, {"is_stable", true}}, {std::move(comparator)});
  b.ret({sorted});
  ir::Region branch0 = b.endRegion();
  b.beginRegion({});
  b.ret({a[0]});
  ir::Region branch1 = b.endRegion();
  ValueId chosen =
      b.op1(OpKind::Case, {a[1]}, f32({4}), {}, {std::move(branch0), std::move(branch1)});

  auto acc = b.beginRegion({f32(), f32()});
  ValueId bigger = b.op1(OpKind::Maximum, {acc[0], acc[1]}, f32());
  b.ret({b.op1(OpKind::Maximum, {bigger, two}, f32())});
  ir::Region combiner = b.endRegion();
  ValueId reduced = b.op1(OpKind::Reduce, {a[0], zero}, f32(), ints("dimensions", {0}),
                          {std::move(combiner)});
  b.ret({chosen, reduced});
  b.endFunction();
  return m;
}

TEST(SinkConstants, ComparatorInACaseBranchAndCombinerGetTheirOwnCopies) {
  ir::Module m = hoistedConstants();
  ASSERT_EQ(capturedBy(mainOf(m).body.ops[2].regions[0].ops[0].regions[0]).size(), 1u);
  EXPECT_TRUE(sinkConstantsIntoClosedRegions(m));
  expectVerifies(m);
  const ir::Function& main = mainOf(m);
  const ir::Region& comparator = main.body.ops[2].regions[0].ops[0].regions[0];
  EXPECT_TRUE(capturedBy(comparator).empty());
  EXPECT_EQ(kindsOf(comparator),
            (std::vector<OpKind>{OpKind::Constant, OpKind::Compare, OpKind::Select,
                                 OpKind::Compare, OpKind::Return}));
  const ir::Region& combiner = main.body.ops[3].regions[0];
  EXPECT_TRUE(capturedBy(combiner).empty());
  EXPECT_EQ(combiner.ops[0].kind, OpKind::Constant);
  // The reduce's init value still reads the function's zero; the case branch
  // itself (control flow) may keep reading enclosing values.
  EXPECT_EQ(main.body.ops[3].operands[1], main.body.ops[0].results[0]);
  // A second run finds nothing left to copy.
  EXPECT_FALSE(sinkConstantsIntoClosedRegions(m));
}

TEST(SinkConstants, OnlyClosedRegionsAreClosed) {
  ir::Op op;
  op.kind = OpKind::Sort;
  EXPECT_FALSE(isClosedRegionOwner(op));  // no region
  op.regions.emplace_back();
  EXPECT_TRUE(isClosedRegionOwner(op));
  for (OpKind kind : {OpKind::While, OpKind::Case, OpKind::If}) {
    op.kind = kind;
    EXPECT_FALSE(isClosedRegionOwner(op));
  }
}

}  // namespace
}  // namespace jft::passes
