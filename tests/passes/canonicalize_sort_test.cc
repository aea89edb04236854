// canonicalize: a sort along a dimension of extent 1 (or 0) returns its
// operands (JAX's `jnp.insert` sorts the one index it inserts); along a longer
// dimension it stays.
#include "pass_test_util.h"
#include "passes/canonicalize.h"

namespace jft::passes {
namespace {

using namespace testing;

// main(keys, values) = sort(keys, values) along `dimension`, ascending keys.
ir::Module sortModule(std::vector<int64_t> dims, int64_t dimension) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {i32(dims), f32(dims)}, {i32(dims), f32(dims)});
  auto args = b.beginRegion({i32(), i32(), f32(), f32()});
  b.ret({b.op1(OpKind::Compare, {args[0], args[1]}, pred(),
               {{"comparison_direction", ir::ComparisonDirection::LT}})});
  ir::Region body = b.endRegion();
  auto sorted = b.op(OpKind::Sort, {a[0], a[1]}, {i32(dims), f32(dims)},
                     {{"dimension", dimension}, {"is_stable", true}}, {std::move(body)});
  b.ret(sorted);
  b.endFunction();
  return m;
}

TEST(CanonicalizeSort, SortOfRowsOfOneReturnsItsOperands) {
  for (auto [dims, dimension] : std::vector<std::pair<std::vector<int64_t>, int64_t>>{
           {{1}, 0}, {{4, 1}, 1}, {{0, 3}, 0}}) {
    ir::Module m = sortModule(dims, dimension);
    const std::vector<ValueId> args = mainOf(m).body.args;
    EXPECT_TRUE(canonicalize(m));
    expectVerifies(m);
    EXPECT_EQ(returned(mainOf(m)), args);
  }
}

TEST(CanonicalizeSort, SortOfLongerRowsStays) {
  ir::Module m = sortModule({4, 2}, 1);
  EXPECT_FALSE(canonicalize(m));
  EXPECT_EQ(mainOf(m).body.ops[0].kind, OpKind::Sort);
}

}  // namespace
}  // namespace jft::passes
