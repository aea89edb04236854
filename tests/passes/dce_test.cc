// dce: unused pure ops go, in nested regions too; side effects stay.
#include "passes/dce.h"

#include "pass_test_util.h"

namespace jft::passes {
namespace {

using namespace testing;

TEST(Dce, UnusedChainsAreRemovedUsedOnesStay) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({4})}, {f32({4})});
  ValueId dead1 = b.op1(OpKind::Exponential, {a[0]}, f32({4}));
  b.op1(OpKind::Log, {dead1}, f32({4}));  // dead, and makes dead1 dead
  ValueId live = b.op1(OpKind::Negate, {a[0]}, f32({4}));
  b.ret({live});
  b.endFunction();
  EXPECT_TRUE(eliminateDeadCode(m));
  expectVerifies(m);
  EXPECT_EQ(kindsOf(mainOf(m).body),
            (std::vector<OpKind>{OpKind::Negate, OpKind::Return}));
  EXPECT_FALSE(eliminateDeadCode(m));
}

TEST(Dce, SideEffectsAreKept) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({4}), Type::token()}, {f32({4})});
  b.op(OpKind::CustomCall, {a[0]}, {f32({4})},
       {{"call_target_name", std::string("print")}, {"has_side_effect", true}});
  b.op(OpKind::CustomCall, {a[0]}, {f32({4})},
       {{"call_target_name", std::string("pure")}, {"has_side_effect", false}});
  b.op(OpKind::Outfeed, {a[0], a[1]}, {Type::token()});
  b.op(OpKind::AllReduce, {a[0]}, {f32({4})});
  b.op(OpKind::RngBitGenerator,
       {b.op1(OpKind::Iota, {}, tensor(ElementType::U64, {2}),
              {{"iota_dimension", int64_t{0}}})},
       {tensor(ElementType::U64, {2}), tensor(ElementType::U32, {4})});
  b.ret({a[0]});
  b.endFunction();
  EXPECT_TRUE(eliminateDeadCode(m));
  EXPECT_EQ(kindsOf(mainOf(m).body),
            (std::vector<OpKind>{OpKind::CustomCall, OpKind::Outfeed, OpKind::AllReduce,
                                 OpKind::Iota, OpKind::RngBitGenerator, OpKind::Return}));
  const auto* target =
      ir::findAttrAs<std::string>(mainOf(m).body.ops[0].attrs, "call_target_name");
  ASSERT_NE(target, nullptr);
  EXPECT_EQ(*target, "print");
}

TEST(Dce, InsideRegionsAndThroughThem) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {pred(), f32(), f32()}, {f32()});
  // Used only inside the branch: must stay.
  ValueId captured = b.op1(OpKind::Sqrt, {a[2]}, f32());
  b.beginRegion({});
  b.op1(OpKind::Tanh, {a[1]}, f32());  // dead inside the region
  b.ret({b.op1(OpKind::Add, {a[1], captured}, f32())});
  ir::Region then_branch = b.endRegion();
  b.beginRegion({});
  b.ret({a[1]});
  ir::Region else_branch = b.endRegion();
  ValueId chosen = b.op1(OpKind::If, {a[0]}, f32(), {},
                         {std::move(then_branch), std::move(else_branch)});
  b.ret({chosen});
  b.endFunction();
  EXPECT_TRUE(eliminateDeadCode(m));
  expectVerifies(m);
  const ir::Region& body = mainOf(m).body;
  EXPECT_EQ(kindsOf(body),
            (std::vector<OpKind>{OpKind::Sqrt, OpKind::If, OpKind::Return}));
  EXPECT_EQ(kindsOf(body.ops[1].regions[0]),
            (std::vector<OpKind>{OpKind::Add, OpKind::Return}));
}

TEST(Dce, UnusedRegionOpWithEffectInsideStays) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {pred(), f32()}, {f32()});
  b.beginRegion({});
  b.op(OpKind::CustomCall, {a[1]}, {},
       {{"call_target_name", std::string("log")}, {"has_side_effect", true}});
  b.ret({a[1]});
  ir::Region then_branch = b.endRegion();
  b.beginRegion({});
  b.ret({a[1]});
  ir::Region else_branch = b.endRegion();
  b.op1(OpKind::If, {a[0]}, f32(), {}, {std::move(then_branch), std::move(else_branch)});
  b.ret({a[1]});
  b.endFunction();
  EXPECT_FALSE(eliminateDeadCode(m));
  EXPECT_EQ(kindsOf(mainOf(m).body), (std::vector<OpKind>{OpKind::If, OpKind::Return}));
}

TEST(Dce, MultiResultOpStaysWhileOneResultIsUsed) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({4}), i32({4})}, {i32({4})});
  std::vector<ValueId> cmp = b.beginRegion({f32(), f32(), i32(), i32()});
  b.ret({b.op1(OpKind::Compare, {cmp[0], cmp[1]}, pred(),
               {{"comparison_direction", ir::ComparisonDirection::LT}})});
  ir::Region comparator = b.endRegion();
  auto sorted = b.op(OpKind::Sort, {a[0], a[1]}, {f32({4}), i32({4})},
                     {{"dimension", int64_t{0}}}, {std::move(comparator)});
  b.ret({sorted[1]});
  b.endFunction();
  EXPECT_FALSE(eliminateDeadCode(m));
  EXPECT_EQ(kindsOf(mainOf(m).body), (std::vector<OpKind>{OpKind::Sort, OpKind::Return}));
}

}  // namespace
}  // namespace jft::passes
