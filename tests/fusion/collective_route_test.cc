// The collective route: a collective, replica_id and partition_id are each a
// group of their own on `collective` when the route is available (programs
// over several participants), never fused with the elementwise work around
// them; without the route they are unsupported, named by the reason.
#include <gtest/gtest.h>

#include "codegen/ttir/capability.h"
#include "fusion/fusion.h"
#include "fusion_test_util.h"

namespace jft::fusion {
namespace {

using namespace testing;

// exp(all_reduce(exp(x))) + replica_id, as the passes leave a pmap psum.
ir::Module psumBetweenExps() {
  ir::Module m;
  ir::Builder b(m);
  auto x =
      b.beginFunction("main", {f32({4})}, {f32({4}), Type::scalar(ElementType::U32)});
  ValueId before = b.op1(OpKind::Exponential, {x[0]}, f32({4}));
  auto a = b.beginRegion({f32(), f32()});
  b.ret({b.op1(OpKind::Add, {a[0], a[1]}, f32())});
  std::vector<ir::Region> region;
  region.push_back(b.endRegion());
  ValueId sum = b.op1(OpKind::AllReduce, {before}, f32({4}), {}, std::move(region));
  ValueId after = b.op1(OpKind::Exponential, {sum}, f32({4}));
  ValueId id = b.op1(OpKind::ReplicaId, {}, Type::scalar(ElementType::U32));
  b.ret({after, id});
  b.endFunction();
  return m;
}

TEST(CollectiveRoute, CollectivesAndIdsAreSingleOpGroups) {
  ir::Module m = psumBetweenExps();
  expectVerifies(m);
  const ir::Function& f = *m.findFunction("main");
  PlanOptions options;
  options.collective_route = true;
  Plan plan = planFusions(m, f, ::jft::codegen::ttir::withTtir(options));
  EXPECT_TRUE(plan.unsupported.empty());
  ASSERT_EQ(plan.fusions.size(), 4u) << describePlan(m, f, plan);
  // exp | all_reduce | exp | replica_id, in program order.
  std::vector<Route> routes;
  for (const Fusion& group : plan.fusions) routes.push_back(group.route);
  EXPECT_EQ(routes, (std::vector<Route>{Route::kTtir, Route::kCollective, Route::kTtir,
                                        Route::kCollective}));
  EXPECT_EQ(plan.fusions[1].ops, (std::vector<size_t>{1}));
  EXPECT_EQ(plan.fusions[3].ops, (std::vector<size_t>{3}));
  EXPECT_NE(describePlan(m, f, plan).find("collective"), std::string::npos);
}

TEST(CollectiveRoute, WithoutTheRouteTheyAreUnsupported) {
  ir::Module m = psumBetweenExps();
  Plan plan = planFusions(m, *m.findFunction("main"), ::jft::codegen::ttir::withTtir());
  ASSERT_EQ(plan.unsupported.size(), 2u);
  EXPECT_EQ(plan.unsupported[0].reason, "no collective route for all_reduce yet");
  EXPECT_EQ(plan.unsupported[1].reason, "no collective route for replica_id yet");
}

}  // namespace
}  // namespace jft::fusion
