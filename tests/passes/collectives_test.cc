// Collectives of one participant: each op's values against the StableHLO
// spec's semantics for a process group of one (worked by hand: the group's
// only member receives its own operand), the replica-group and shape rules as
// errors that name the op, and the pipeline's choice between this pass and
// collectives_spmd.
#include "passes/collectives.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "integer_eval.h"
#include "pass_test_util.h"
#include "passes/canonicalize.h"
#include "passes/pipeline.h"

namespace jft::passes {
namespace {

using namespace testing;

ir::DenseElements i64Matrix(int64_t rows, int64_t cols, std::vector<double> values) {
  return ir::denseFromValues(tensor(ElementType::I64, {rows, cols}), values);
}

ir::NamedAttrs groups(int64_t rows, int64_t cols, std::vector<double> values) {
  return {{"replica_groups", i64Matrix(rows, cols, std::move(values))}};
}

// The shard_map form: a channel and global device ids.
ir::NamedAttrs spmd(ir::NamedAttrs attrs) {
  attrs.push_back({"channel_handle", ir::ChannelHandle{1, 1}});
  attrs.push_back({"use_global_device_ids", ir::UnitAttr{}});
  return attrs;
}

ir::NamedAttrs with(ir::NamedAttrs attrs, const std::string& name, ir::Attribute value) {
  attrs.push_back({name, std::move(value)});
  return attrs;
}

// (tensor<E>, tensor<E>) -> tensor<E>: add, the region of psum.
ir::Region addRegion(ir::Builder& b, ElementType element) {
  auto a = b.beginRegion({tensor(element), tensor(element)});
  b.ret({b.op1(OpKind::Add, {a[0], a[1]}, tensor(element))});
  return b.endRegion();
}

// main(args...) returns one op of `kind` applied to all of them.
ir::Module single(OpKind kind, std::vector<Type> args, std::vector<Type> results,
                  ir::NamedAttrs attrs, bool region = false) {
  ir::Module m;
  ir::Builder b(m);
  auto values = b.beginFunction("main", args, results);
  std::vector<ir::Region> regions;
  if (region) regions.push_back(addRegion(b, results[0].element));
  b.ret(b.op(kind, values, results, std::move(attrs), std::move(regions)));
  b.endFunction();
  return m;
}

bool holds(const ir::Module& m, OpKind kind) {
  for (const ir::Op& op : mainOf(m).body.ops)
    if (op.kind == kind) return true;
  return false;
}

// Runs the pass, expects success and a verifying module without `kind`.
void lower(ir::Module& m, OpKind kind) {
  StatusOr<bool> changed = lowerSingleParticipantCollectives(m);
  ASSERT_TRUE(changed.isOk()) << changed.status().toString();
  EXPECT_TRUE(*changed);
  expectVerifies(m);
  EXPECT_FALSE(holds(m, kind)) << ir::printModule(m);
}

// The error the pass gives, which must be INVALID_ARGUMENT.
std::string refusal(ir::Module m) {
  StatusOr<bool> changed = lowerSingleParticipantCollectives(m);
  EXPECT_FALSE(changed.isOk());
  if (changed.isOk()) return "";
  EXPECT_EQ(changed.status().code(), StatusCode::kInvalidArgument);
  return changed.status().message();
}

const Tensor kTwoByThree{{2, 3}, {1, -2, 3, -4, 5, -6}};

TEST(Collectives, AllReduceOfOneParticipantIsItsOperand) {
  // psum under pmap on one device: replica_groups [[0]], no channel.
  ir::Module m = single(OpKind::AllReduce, {i32({2, 3})}, {i32({2, 3})},
                        groups(1, 1, {0}), /*region=*/true);
  lower(m, OpKind::AllReduce);
  auto out = evaluate(m, {kTwoByThree});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(out[0].data, kTwoByThree.data);
  // What is left is a convert to the same type, which canonicalize removes:
  // the function returns its argument.
  canonicalize(m);
  EXPECT_EQ(returned(mainOf(m))[0], mainOf(m).body.args[0]);
}

TEST(Collectives, AllReduceOfSeveralOperandsConvertsToTheRegionType) {
  // Two operands, the first promoted from i8 to the region's i32 (the
  // spec's to_destination_type of the one leaf); shard_map's attributes.
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {i8({4}), i32({2, 2})}, {i32({4}), i32({2, 2})});
  std::vector<ir::Region> regions;
  regions.push_back(addRegion(b, ElementType::I32));
  b.ret(b.op(OpKind::AllReduce, {a[0], a[1]}, {i32({4}), i32({2, 2})},
             spmd(groups(1, 1, {0})), std::move(regions)));
  b.endFunction();
  lower(m, OpKind::AllReduce);
  auto out = evaluate(m, {{{4}, {-128, -1, 0, 127}}, {{2, 2}, {7, 8, 9, 10}}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].data, (std::vector<int64_t>{-128, -1, 0, 127}));
  EXPECT_EQ(out[1].data, (std::vector<int64_t>{7, 8, 9, 10}));
  EXPECT_EQ(m.typeOf(returned(mainOf(m))[0]), i32({4}));
}

TEST(Collectives, EmptyAbsentAndPaddedGroupsMeanTheOneParticipant) {
  for (ir::NamedAttrs attrs : {groups(0, 0, {}), ir::NamedAttrs{}, groups(1, 2, {0, -1}),
                               groups(2, 1, {0, -1})}) {
    ir::Module m = single(OpKind::AllReduce, {i32({3})}, {i32({3})}, attrs, true);
    lower(m, OpKind::AllReduce);
    EXPECT_EQ(evaluate(m, {{{3}, {4, 5, 6}}})[0].data, (std::vector<int64_t>{4, 5, 6}));
  }
}

TEST(Collectives, GroupsNamingOtherParticipantsAreRefusedNamingOpAndGroups) {
  std::string two = refusal(
      single(OpKind::AllReduce, {i32({3})}, {i32({3})}, groups(1, 2, {0, 1}), true));
  EXPECT_NE(two.find("all_reduce"), std::string::npos) << two;
  EXPECT_NE(two.find("replica_groups [[0, 1]]"), std::string::npos) << two;
  EXPECT_NE(two.find("participant 1"), std::string::npos) << two;

  std::string other =
      refusal(single(OpKind::AllGather, {i32({3})}, {i32({3})},
                     with(groups(1, 1, {1}), "all_gather_dim", int64_t{0})));
  EXPECT_NE(other.find("all_gather"), std::string::npos) << other;
  EXPECT_NE(other.find("[[1]]"), std::string::npos) << other;

  std::string twice = refusal(
      single(OpKind::AllReduce, {i32({3})}, {i32({3})}, groups(2, 1, {0, 0}), true));
  EXPECT_NE(twice.find("more than once"), std::string::npos) << twice;

  std::string none = refusal(
      single(OpKind::CrossReplicaSum, {i32({3})}, {i32({3})}, groups(1, 1, {-1})));
  EXPECT_NE(none.find("cross-replica-sum"), std::string::npos) << none;
  EXPECT_NE(none.find("do not name participant 0"), std::string::npos) << none;

  // A mesh-axes form (kept opaque by the importer) is not read.
  std::string mesh = refusal(
      single(OpKind::AllReduce, {i32({3})}, {i32({3})},
             {{"replica_groups", ir::OpaqueAttr{"stablehlo", "#mesh_axes"}}}, true));
  EXPECT_NE(mesh.find("not a 2-d integer literal"), std::string::npos) << mesh;
}

TEST(Collectives, AllGatherOfOneIsTheOperandTiledOrNot) {
  // Gathering dim 1 of a group of one multiplies it by one.
  ir::Module m = single(OpKind::AllGather, {i32({2, 3})}, {i32({2, 3})},
                        with(spmd(groups(1, 1, {0})), "all_gather_dim", int64_t{1}));
  lower(m, OpKind::AllGather);
  EXPECT_EQ(evaluate(m, {kTwoByThree})[0].data, kTwoByThree.data);

  // Results of a two-participant gather do not fit one participant.
  std::string doubled =
      refusal(single(OpKind::AllGather, {i32({2, 3})}, {i32({2, 6})},
                     with(groups(1, 1, {0}), "all_gather_dim", int64_t{1})));
  EXPECT_NE(doubled.find("result 0 is tensor<2x6xi32>"), std::string::npos) << doubled;
  std::string outside =
      refusal(single(OpKind::AllGather, {i32({2, 3})}, {i32({2, 3})},
                     with(groups(1, 1, {0}), "all_gather_dim", int64_t{2})));
  EXPECT_NE(outside.find("all_gather_dim 2 is not a dimension"), std::string::npos)
      << outside;
  std::string missing =
      refusal(single(OpKind::AllGather, {i32({2})}, {i32({2})}, groups(1, 1, {0})));
  EXPECT_NE(missing.find("has no all_gather_dim"), std::string::npos) << missing;
}

TEST(Collectives, AllGatherOfSeveralOperands) {
  ir::Module m = single(OpKind::AllGather, {i32({2}), i8({1, 2})}, {i32({2}), i8({1, 2})},
                        with(groups(1, 1, {0}), "all_gather_dim", int64_t{0}));
  lower(m, OpKind::AllGather);
  auto out = evaluate(m, {{{2}, {3, 4}}, {{1, 2}, {-5, 6}}});
  EXPECT_EQ(out[0].data, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(out[1].data, (std::vector<int64_t>{-5, 6}));
}

TEST(Collectives, ReduceScatterOfOneKeepsTheWholeReducedOperand) {
  // psum_scatter: one part, the whole operand, in the region's type.
  ir::Module m = single(OpKind::ReduceScatter, {i8({4})}, {i32({4})},
                        with(groups(1, 1, {0}), "scatter_dimension", int64_t{0}), true);
  lower(m, OpKind::ReduceScatter);
  EXPECT_EQ(evaluate(m, {{{4}, {1, -2, 3, -4}}})[0].data,
            (std::vector<int64_t>{1, -2, 3, -4}));
  std::string halved =
      refusal(single(OpKind::ReduceScatter, {i32({4})}, {i32({2})},
                     with(groups(1, 1, {0}), "scatter_dimension", int64_t{0}), true));
  EXPECT_NE(halved.find("reduce_scatter"), std::string::npos) << halved;
  EXPECT_NE(halved.find("result 0 is tensor<2xi32>"), std::string::npos) << halved;
}

ir::NamedAttrs allToAll(int64_t split, int64_t concat, int64_t count) {
  ir::NamedAttrs attrs = groups(1, 1, {0});
  attrs.push_back({"split_dimension", split});
  attrs.push_back({"concat_dimension", concat});
  attrs.push_back({"split_count", count});
  return attrs;
}

TEST(Collectives, AllToAllOfOneSplitsAndConcatenatesOnePiece) {
  // split dim 0, concat dim 1, split_count 1: C9 keeps every dim.
  ir::Module m = single(OpKind::AllToAll, {i32({2, 3}), i32({1, 2})},
                        {i32({2, 3}), i32({1, 2})}, allToAll(0, 1, 1));
  lower(m, OpKind::AllToAll);
  auto out = evaluate(m, {kTwoByThree, {{1, 2}, {8, 9}}});
  EXPECT_EQ(out[0].data, kTwoByThree.data);
  EXPECT_EQ(out[1].data, (std::vector<int64_t>{8, 9}));

  std::string outside = refusal(single(OpKind::AllToAll, {i32({2, 3}), i32({4})},
                                       {i32({2, 3}), i32({4})}, allToAll(0, 1, 1)));
  EXPECT_NE(outside.find("concat_dimension 1 is not a dimension of tensor<4xi32>"),
            std::string::npos)
      << outside;
  std::string split =
      refusal(single(OpKind::AllToAll, {i32({4, 2})}, {i32({2, 4})}, allToAll(0, 1, 2)));
  EXPECT_NE(split.find("all_to_all"), std::string::npos) << split;
  EXPECT_NE(split.find("split_count 2"), std::string::npos) << split;
}

TEST(Collectives, CollectivePermuteToItselfIsTheOperandElseZeros) {
  ir::Module self = single(OpKind::CollectivePermute, {i32({2, 3})}, {i32({2, 3})},
                           {{"source_target_pairs", i64Matrix(1, 2, {0, 0})}});
  lower(self, OpKind::CollectivePermute);
  EXPECT_EQ(evaluate(self, {kTwoByThree})[0].data, kTwoByThree.data);

  // No pair targets participant 0: it receives zeros of the result type.
  ir::Module nothing = single(OpKind::CollectivePermute, {i32({2, 3})}, {i32({2, 3})},
                              {{"source_target_pairs", i64Matrix(0, 2, {})}});
  lower(nothing, OpKind::CollectivePermute);
  auto out = evaluate(nothing, {kTwoByThree});
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(out[0].data, (std::vector<int64_t>(6, 0)));

  std::string shifted =
      refusal(single(OpKind::CollectivePermute, {i32({2})}, {i32({2})},
                     {{"source_target_pairs", i64Matrix(2, 2, {0, 1, 1, 0})}}));
  EXPECT_NE(shifted.find("collective_permute"), std::string::npos) << shifted;
  EXPECT_NE(shifted.find("source_target_pairs [[0, 1], [1, 0]]"), std::string::npos)
      << shifted;
  std::string missing =
      refusal(single(OpKind::CollectivePermute, {i32({2})}, {i32({2})}, {}));
  EXPECT_NE(missing.find("has no source_target_pairs"), std::string::npos) << missing;
}

TEST(Collectives, CollectiveBroadcastAndCrossReplicaSumAreTheOperand) {
  ir::Module broadcast =
      single(OpKind::CollectiveBroadcast, {i32({3})}, {i32({3})}, groups(1, 1, {0}));
  lower(broadcast, OpKind::CollectiveBroadcast);
  EXPECT_EQ(evaluate(broadcast, {{{3}, {1, 2, 3}}})[0].data,
            (std::vector<int64_t>{1, 2, 3}));

  // has_dynamic_root: the last operand picks the root, which is 0 in a
  // group of one; it has no result.
  ir::Module dynamic =
      single(OpKind::CollectiveBroadcast, {i32({3}), i32({1})}, {i32({3})},
             with(groups(1, 1, {0}), "has_dynamic_root", ir::UnitAttr{}));
  lower(dynamic, OpKind::CollectiveBroadcast);
  EXPECT_EQ(evaluate(dynamic, {{{3}, {4, 5, 6}}, {{1}, {0}}})[0].data,
            (std::vector<int64_t>{4, 5, 6}));

  ir::Module sum =
      single(OpKind::CrossReplicaSum, {i32({2})}, {i32({2})}, groups(1, 1, {0}));
  lower(sum, OpKind::CrossReplicaSum);
  EXPECT_EQ(evaluate(sum, {{{2}, {-7, 7}}})[0].data, (std::vector<int64_t>{-7, 7}));

  std::string unpaired = refusal(single(OpKind::CollectiveBroadcast, {i32({3}), i32({3})},
                                        {i32({3})}, groups(1, 1, {0})));
  EXPECT_NE(unpaired.find("do not pair up"), std::string::npos) << unpaired;
}

TEST(Collectives, ReplicaAndPartitionIdsAreZero) {
  ir::Module m;
  ir::Builder b(m);
  const Type u32 = tensor(ElementType::U32);
  b.beginFunction("main", {}, {u32, u32});
  ValueId replica = b.op1(OpKind::ReplicaId, {}, u32);
  ValueId partition = b.op1(OpKind::PartitionId, {}, u32);
  b.ret({replica, partition});
  b.endFunction();
  lower(m, OpKind::ReplicaId);
  EXPECT_FALSE(holds(m, OpKind::PartitionId));
  auto out = evaluate(m, {});
  EXPECT_EQ(out[0].data, (std::vector<int64_t>{0}));
  EXPECT_EQ(out[1].data, (std::vector<int64_t>{0}));
}

TEST(Collectives, FloatOperandsStayTheirValues) {
  ir::Module m =
      single(OpKind::AllReduce, {f32({8})}, {f32({8})}, groups(1, 1, {0}), true);
  ValueId arg = mainOf(m).body.args[0];
  lower(m, OpKind::AllReduce);
  canonicalize(m);
  EXPECT_EQ(returned(mainOf(m))[0], arg);
}

TEST(Collectives, ProgramsWithoutCollectivesAreUnchanged) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {i32({2})}, {i32({2})});
  b.ret({b.op1(OpKind::Add, {a[0], a[0]}, i32({2}))});
  b.endFunction();
  StatusOr<bool> changed = lowerSingleParticipantCollectives(m);
  ASSERT_TRUE(changed.isOk());
  EXPECT_FALSE(*changed);
}

ir::Module threeCollectives() {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {i32({2})}, {i32({2})});
  std::vector<ir::Region> first, second;
  first.push_back(addRegion(b, ElementType::I32));
  second.push_back(addRegion(b, ElementType::I32));
  ValueId x =
      b.op1(OpKind::AllReduce, {a[0]}, i32({2}), groups(1, 2, {0, 1}), std::move(first));
  ValueId y = b.op1(OpKind::AllGather, {x}, i32({2}),
                    with(groups(1, 2, {0, 1}), "all_gather_dim", int64_t{0}));
  ValueId z =
      b.op1(OpKind::AllReduce, {y}, i32({2}), groups(1, 2, {0, 1}), std::move(second));
  b.ret({z});
  b.endFunction();
  return m;
}

TEST(Collectives, PipelineLowersForOneParticipantAndChecksShapesForMore) {
  PipelineOptions options;
  options.verify = true;
  // Over two replicas the groups [[0, 1]] gather two parts: the all_gather's
  // tensor<2xi32> result should be tensor<4xi32> (spec, all_gather C6).
  options.grid = {2, 1};
  ir::Module m = threeCollectives();
  StatusOr<PipelineReport> refused = runPasses(m, options);
  ASSERT_FALSE(refused.isOk());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("all_gather at "), std::string::npos)
      << refused.status().message();
  EXPECT_NE(refused.status().message().find("it is tensor<4xi32>"), std::string::npos)
      << refused.status().message();
  options.grid = {0, 2};
  ir::Module none = threeCollectives();
  EXPECT_EQ(runPasses(none, options).status().code(), StatusCode::kInvalidArgument);

  // One participant: groups [[0]] everywhere, and nothing left but the
  // argument, returned.
  ir::Module one;
  ir::Builder b(one);
  auto a = b.beginFunction("main", {i32({2})}, {i32({2})});
  std::vector<ir::Region> region;
  region.push_back(addRegion(b, ElementType::I32));
  ValueId x =
      b.op1(OpKind::AllReduce, {a[0]}, i32({2}), groups(1, 1, {0}), std::move(region));
  ValueId y = b.op1(OpKind::AllGather, {x}, i32({2}),
                    with(groups(1, 1, {0}), "all_gather_dim", int64_t{0}));
  b.ret({y});
  b.endFunction();
  options.grid = {1, 1};
  StatusOr<PipelineReport> report = runPasses(one, options);
  ASSERT_TRUE(report.isOk()) << report.status().toString();
  const auto collectives =
      std::find_if(report->passes.begin(), report->passes.end(),
                   [](const PassRecord& record) { return record.pass == "collectives"; });
  ASSERT_NE(collectives, report->passes.end());
  EXPECT_TRUE(collectives->changed);
  EXPECT_EQ(kindsOf(mainOf(one).body), (std::vector<OpKind>{OpKind::Return}));
  EXPECT_EQ(returned(mainOf(one))[0], mainOf(one).body.args[0]);
}

}  // namespace
}  // namespace jft::passes
