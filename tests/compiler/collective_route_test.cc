// Programs over several participants through compile(): each collective is
// one runtime::CollectiveThunk, replica_id / partition_id a
// ParticipantIdThunk. The expected descriptions are worked out by hand from
// the StableHLO spec (process groups by channel_id and use_global_device_ids,
// result sizes by group size) and runtime/collective.h's definitions; the
// element order of the layout rewrites is checked by
// tests/passes/collectives_spmd_test.cc.
#include <gtest/gtest.h>

#include <optional>
#include <variant>

#include "compiler/compiler.h"
#include "compiler/ir_shorthands.h"
#include "compiler/program_checks.h"
#include "ir/builder.h"
#include "passes/collective_attrs.h"

namespace jft::compiler {
namespace {

using ir::ElementType;
using ir::OpKind;
using ir::Type;
using ir::ValueId;
using passes::testing::groups;
using passes::testing::spmd;
using passes::testing::with;
using runtime::CollectiveGroupMode;
using runtime::CollectiveKind;
using runtime::CollectiveReduction;
using runtime::CollectiveThunk;
using runtime::CollectiveType;
using testing::f32;

ir::Module single(OpKind kind, std::vector<Type> args, std::vector<Type> results,
                  ir::NamedAttrs attrs, std::optional<OpKind> region_op = std::nullopt,
                  ElementType region_element = ElementType::F32) {
  ir::Module m;
  m.name = "spmd";
  ir::Builder b(m);
  auto values = b.beginFunction("main", args, results);
  std::vector<ir::Region> regions;
  if (region_op) {
    const Type scalar = Type::scalar(region_element);
    auto a = b.beginRegion({scalar, scalar});
    b.ret({b.op1(*region_op, {a[0], a[1]}, scalar)});
    regions.push_back(b.endRegion());
  }
  b.setLoc(b.fileLoc("model.py", 9, 2));
  auto out = b.op(kind, values, results, std::move(attrs), std::move(regions));
  b.setLoc(ir::kUnknownLoc);
  b.ret(out);
  b.endFunction();
  return m;
}

StatusOr<Executable> compileFor(ir::Module m, int replicas, int partitions,
                                Stages* stages = nullptr, Mode mode = Mode::kFlOnly) {
  Options options;
  options.mode = mode;
  options.num_replicas = replicas;
  options.num_partitions = partitions;
  return compileModule(std::move(m), options, nullptr, stages);
}

// "launch", "collective", "replica_id", "partition_id", "copy", ...
std::vector<std::string> thunkKinds(const runtime::Program& p) {
  std::vector<std::string> kinds;
  for (const runtime::Thunk& t : p.thunks) {
    if (std::holds_alternative<runtime::LaunchThunk>(t))
      kinds.push_back("launch");
    else if (std::holds_alternative<CollectiveThunk>(t))
      kinds.push_back("collective");
    else if (const auto* id = std::get_if<runtime::ParticipantIdThunk>(&t))
      kinds.push_back(id->partition ? "partition_id" : "replica_id");
    else if (std::holds_alternative<runtime::CopyThunk>(t))
      kinds.push_back("copy");
    else
      kinds.push_back("other");
  }
  return kinds;
}

std::vector<const CollectiveThunk*> collectives(const runtime::Program& p) {
  std::vector<const CollectiveThunk*> out;
  for (const runtime::Thunk& t : p.thunks)
    if (const auto* c = std::get_if<CollectiveThunk>(&t)) out.push_back(c);
  return out;
}

runtime::CollectiveDesc desc(CollectiveKind kind, CollectiveType type, int64_t ranks,
                             int64_t count,
                             CollectiveReduction reduction = CollectiveReduction::kSum) {
  runtime::CollectiveDesc d;
  d.kind = kind;
  d.type = type;
  d.reduction = reduction;
  d.ranks = ranks;
  d.count = count;
  return d;
}

const runtime::BufferSlot& slot(const runtime::Program& p, int s) {
  return p.slots.at(static_cast<size_t>(s));
}

TEST(CollectiveRoute, PmapPsumIsOneCrossReplicaAllReduce) {
  // jax.pmap(lambda x: jax.lax.psum(x, 'i')) over two devices.
  Stages stages;
  StatusOr<Executable> compiled =
      compileFor(single(OpKind::AllReduce, {f32({4})}, {f32({4})}, groups(1, 2, {0, 1}),
                        OpKind::Add),
                 2, 1, &stages);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  const runtime::Program& p = compiled->program;
  testing::expectConsistentProgram(p, false);
  EXPECT_EQ(thunkKinds(p), (std::vector<std::string>{"collective"}));
  const CollectiveThunk& c = *collectives(p)[0];
  EXPECT_EQ(c.desc, desc(CollectiveKind::kAllReduce, CollectiveType::kF32, 2, 4));
  EXPECT_EQ(c.groups.mode, CollectiveGroupMode::kCrossReplica);
  EXPECT_EQ(c.groups.groups, (std::vector<std::vector<int64_t>>{{0, 1}}));
  EXPECT_TRUE(c.groups.pairs.empty());
  // Read from the argument, written straight into the output, never in place.
  EXPECT_EQ(slot(p, c.input).kind, runtime::BufferSlot::Kind::kParameter);
  EXPECT_EQ(c.output, p.output_slots[0]);
  EXPECT_NE(c.input, c.output);
  ASSERT_EQ(compiled->report.entries.size(), 1u);
  EXPECT_EQ(compiled->report.entries[0].route, "collective");
  EXPECT_NE(compiled->report.entries[0].tile.find(
                "all_reduce sum f32 x4 over 2 ranks, cross_replica [[0, 1]]"),
            std::string::npos)
      << compiled->report.entries[0].tile;
  EXPECT_NE(stages.plan.find("collective"), std::string::npos) << stages.plan;
  EXPECT_NE(compiled->report.text().find("collective"), std::string::npos);
}

TEST(CollectiveRoute, ADonatedArgumentIsNotReducedInPlace) {
  ir::Module m = single(OpKind::AllReduce, {f32({4})}, {f32({4})}, groups(1, 2, {0, 1}),
                        OpKind::Add);
  m.functions[0].arg_attrs = {{{"tf.aliasing_output", int64_t{0}}}};
  StatusOr<Executable> compiled = compileFor(std::move(m), 2, 1);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  EXPECT_EQ(compiled->program.output_aliases, (std::vector<int>{-1}));
  EXPECT_EQ(compiled->program.donated_parameters, (std::vector<bool>{true}));
}

TEST(CollectiveRoute, ShardMapAllGatherOnDimOneTransposesAround) {
  // all_gather(x, 'x', axis=1, tiled=True) in shard_map over 2 partitions:
  // channel + global ids, flattened ids [[0, 1]].
  Stages stages;
  StatusOr<Executable> compiled =
      compileFor(single(OpKind::AllGather, {f32({2, 3})}, {f32({2, 6})},
                        spmd(with(groups(1, 2, {0, 1}), "all_gather_dim", int64_t{1}))),
                 1, 2, &stages);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  const runtime::Program& p = compiled->program;
  testing::expectConsistentProgram(p, false);
  EXPECT_EQ(thunkKinds(p), (std::vector<std::string>{"launch", "collective", "launch"}));
  EXPECT_EQ(stages.ttir.size(), 2u);  // the two transposes
  const CollectiveThunk& c = *collectives(p)[0];
  // Each rank sends its 3x2 transposed block (6 elements) and receives 2x6.
  EXPECT_EQ(c.desc, desc(CollectiveKind::kAllGather, CollectiveType::kF32, 2, 6));
  EXPECT_EQ(c.groups.mode, CollectiveGroupMode::kFlattenedIds);
  EXPECT_EQ(c.groups.groups, (std::vector<std::vector<int64_t>>{{0, 1}}));
  EXPECT_EQ(slot(p, c.input).bytes, 24u);
  EXPECT_EQ(slot(p, c.output).bytes, 48u);
  EXPECT_EQ(slot(p, c.input).kind, runtime::BufferSlot::Kind::kTemp);
  EXPECT_EQ(slot(p, c.output).kind, runtime::BufferSlot::Kind::kTemp);
}

TEST(CollectiveRoute, PsumScatterWritesAPartOfTheSum) {
  // psum_scatter(x, 'x', scatter_dimension=0, tiled=True) over 4 partitions.
  StatusOr<Executable> compiled = compileFor(
      single(OpKind::ReduceScatter, {f32({8, 2})}, {f32({2, 2})},
             spmd(with(groups(1, 4, {0, 1, 2, 3}), "scatter_dimension", int64_t{0})),
             OpKind::Add),
      1, 4);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  const runtime::Program& p = compiled->program;
  EXPECT_EQ(thunkKinds(p), (std::vector<std::string>{"collective"}));
  const CollectiveThunk& c = *collectives(p)[0];
  EXPECT_EQ(c.desc, desc(CollectiveKind::kReduceScatter, CollectiveType::kF32, 4, 16));
  EXPECT_EQ(slot(p, c.input).bytes, 64u);
  EXPECT_EQ(slot(p, c.output).bytes, 16u);  // count / ranks elements
  EXPECT_EQ(c.output, p.output_slots[0]);
}

TEST(CollectiveRoute, AllToAllIsCrossPartitionWithItsChunksFirst) {
  ir::NamedAttrs attrs = groups(1, 2, {0, 1});
  attrs = with(attrs, "split_dimension", int64_t{1});
  attrs = with(attrs, "concat_dimension", int64_t{0});
  attrs = with(attrs, "split_count", int64_t{2});
  attrs.push_back({"channel_handle", ir::ChannelHandle{5, 1}});
  StatusOr<Executable> compiled =
      compileFor(single(OpKind::AllToAll, {f32({2, 4})}, {f32({4, 2})}, attrs), 1, 2);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  const runtime::Program& p = compiled->program;
  testing::expectConsistentProgram(p, false);
  ASSERT_EQ(collectives(p).size(), 1u);
  const CollectiveThunk& c = *collectives(p)[0];
  EXPECT_EQ(c.desc, desc(CollectiveKind::kAllToAll, CollectiveType::kF32, 2, 8));
  EXPECT_EQ(c.groups.mode, CollectiveGroupMode::kCrossPartition);
  // The split dim's chunks are moved to the front first: a kernel before it.
  EXPECT_EQ(thunkKinds(p).front(), "launch");
}

TEST(CollectiveRoute, PpermuteKeepsItsPairs) {
  ir::NamedAttrs attrs = {
      {"source_target_pairs",
       ir::denseFromValues(Type::tensor(ElementType::I64, {2, 2}), {0, 1, 1, 0})},
      {"channel_handle", ir::ChannelHandle{2, 1}}};
  StatusOr<Executable> compiled =
      compileFor(single(OpKind::CollectivePermute, {f32({3})}, {f32({3})}, attrs), 1, 2);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  const CollectiveThunk& c = *collectives(compiled->program)[0];
  runtime::CollectiveDesc expected =
      desc(CollectiveKind::kCollectivePermute, CollectiveType::kF32, 2, 3);
  expected.pairs = {{0, 1}, {1, 0}};
  EXPECT_EQ(c.desc, expected);
  EXPECT_EQ(c.groups.mode, CollectiveGroupMode::kCrossPartition);
  EXPECT_TRUE(c.groups.groups.empty());
  EXPECT_EQ(c.groups.pairs, (std::vector<std::pair<int64_t, int64_t>>{{0, 1}, {1, 0}}));
}

TEST(CollectiveRoute, CollectiveBroadcastFromTheGroupsFirstReplica) {
  StatusOr<Executable> compiled = compileFor(
      single(OpKind::CollectiveBroadcast, {f32({3})}, {f32({3})}, groups(1, 2, {1, 0})),
      2, 1);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  const CollectiveThunk& c = *collectives(compiled->program)[0];
  EXPECT_EQ(c.desc,
            desc(CollectiveKind::kCollectiveBroadcast, CollectiveType::kF32, 2, 3));
  EXPECT_EQ(c.groups.mode, CollectiveGroupMode::kCrossReplica);
  EXPECT_EQ(c.groups.groups, (std::vector<std::vector<int64_t>>{{1, 0}}));
}

TEST(CollectiveRoute, ReplicaAndPartitionIdsAreParticipantIdThunks) {
  ir::Module m;
  m.name = "ids";
  ir::Builder b(m);
  const Type u32 = Type::scalar(ElementType::U32);
  b.beginFunction("main", {}, {u32, u32});
  ValueId replica = b.op1(OpKind::ReplicaId, {}, u32);
  ValueId partition = b.op1(OpKind::PartitionId, {}, u32);
  b.ret({replica, partition});
  b.endFunction();
  StatusOr<Executable> compiled = compileFor(std::move(m), 2, 2);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  const runtime::Program& p = compiled->program;
  EXPECT_EQ(thunkKinds(p), (std::vector<std::string>{"replica_id", "partition_id"}));
  const auto& r = std::get<runtime::ParticipantIdThunk>(p.thunks[0]);
  const auto& q = std::get<runtime::ParticipantIdThunk>(p.thunks[1]);
  EXPECT_EQ(r.destination, p.output_slots[0]);
  EXPECT_EQ(q.destination, p.output_slots[1]);
  EXPECT_EQ(slot(p, r.destination).bytes, 4u);
  for (const RouteEntry& entry : compiled->report.entries)
    EXPECT_EQ(entry.route, "collective") << entry.name;
}

TEST(CollectiveRoute, TupleAllReduceIsOneThunkPerOperand) {
  StatusOr<Executable> compiled =
      compileFor(single(OpKind::AllReduce, {f32({2}), f32({3})}, {f32({2}), f32({3})},
                        groups(1, 2, {0, 1}), OpKind::Maximum),
                 2, 1);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  const runtime::Program& p = compiled->program;
  EXPECT_EQ(thunkKinds(p), (std::vector<std::string>{"collective", "collective"}));
  auto c = collectives(p);
  EXPECT_EQ(c[0]->desc, desc(CollectiveKind::kAllReduce, CollectiveType::kF32, 2, 2,
                             CollectiveReduction::kMax));
  EXPECT_EQ(c[1]->desc, desc(CollectiveKind::kAllReduce, CollectiveType::kF32, 2, 3,
                             CollectiveReduction::kMax));
  EXPECT_EQ(c[0]->output, p.output_slots[0]);
  EXPECT_EQ(c[1]->output, p.output_slots[1]);
}

TEST(CollectiveRoute, PredAndIsAByteMinimum) {
  const Type pred = Type::tensor(ElementType::PRED, {5});
  StatusOr<Executable> compiled =
      compileFor(single(OpKind::AllReduce, {pred}, {pred}, groups(1, 2, {0, 1}),
                        OpKind::And, ElementType::PRED),
                 2, 1);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  EXPECT_EQ(collectives(compiled->program)[0]->desc,
            desc(CollectiveKind::kAllReduce, CollectiveType::kU8, 2, 5,
                 CollectiveReduction::kMin));
}

TEST(CollectiveRoute, ComplexSumsArePairsOfReals) {
  const Type c64 = Type::tensor(ElementType::C64, {3});
  StatusOr<Executable> compiled =
      compileFor(single(OpKind::AllReduce, {c64}, {c64}, groups(1, 2, {0, 1}),
                        OpKind::Add, ElementType::C64),
                 2, 1);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  const runtime::Program& p = compiled->program;
  const CollectiveThunk& c = *collectives(p)[0];
  EXPECT_EQ(c.desc, desc(CollectiveKind::kAllReduce, CollectiveType::kF32, 2, 6));
  EXPECT_EQ(slot(p, c.output).bytes, 24u);
}

TEST(CollectiveRoute, AnUnsupportedRegionFailsNamingTheOp) {
  StatusOr<Executable> compiled =
      compileFor(single(OpKind::AllReduce, {f32({2})}, {f32({2})}, groups(1, 2, {0, 1}),
                        OpKind::Divide),
                 2, 1);
  ASSERT_FALSE(compiled.isOk());
  EXPECT_EQ(compiled.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(compiled.status().message().find("all_reduce at model.py:9:2"),
            std::string::npos)
      << compiled.status().message();
}

TEST(CollectiveRoute, ComplexProductFailsNamingTheOpAndType) {
  const Type c64 = Type::tensor(ElementType::C64, {3});
  StatusOr<Executable> compiled =
      compileFor(single(OpKind::AllReduce, {c64}, {c64}, groups(1, 2, {0, 1}),
                        OpKind::Multiply, ElementType::C64),
                 2, 1);
  ASSERT_FALSE(compiled.isOk());
  EXPECT_EQ(compiled.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(compiled.status().message().find(
                "all_reduce at model.py:9:2: a multiply of complex<f32>"),
            std::string::npos)
      << compiled.status().message();
}

TEST(CollectiveRoute, ACollectiveInsideABranchIsInItsList) {
  // case(index, psum(x), x): the branch's list holds the collective thunk.
  ir::Module m;
  m.name = "branch";
  ir::Builder b(m);
  const Type i32 = Type::scalar(ElementType::I32);
  auto args = b.beginFunction("main", {i32, f32({4})}, {f32({4})});
  b.beginRegion({});
  auto a =
      b.beginRegion({Type::scalar(ElementType::F32), Type::scalar(ElementType::F32)});
  b.ret({b.op1(OpKind::Add, {a[0], a[1]}, Type::scalar(ElementType::F32))});
  std::vector<ir::Region> add;
  add.push_back(b.endRegion());
  b.ret({b.op1(OpKind::AllReduce, {args[1]}, f32({4}), groups(1, 2, {0, 1}),
               std::move(add))});
  ir::Region first = b.endRegion();
  b.beginRegion({});
  b.ret({args[1]});
  ir::Region second = b.endRegion();
  b.ret({b.op1(OpKind::Case, {args[0]}, f32({4}), {}, {first, second})});
  b.endFunction();
  StatusOr<Executable> compiled = compileFor(std::move(m), 2, 1);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  const runtime::Program& p = compiled->program;
  ASSERT_EQ(p.thunks.size(), 1u);
  const auto* conditional = std::get_if<runtime::ConditionalThunk>(&p.thunks[0]);
  ASSERT_NE(conditional, nullptr);
  ASSERT_EQ(conditional->branches.size(), 2u);
  const auto& list = p.lists.at(static_cast<size_t>(conditional->branches[0]));
  size_t found = 0;
  for (const runtime::Thunk& t : list)
    if (const auto* c = std::get_if<CollectiveThunk>(&t)) {
      ++found;
      EXPECT_EQ(c->desc, desc(CollectiveKind::kAllReduce, CollectiveType::kF32, 2, 4));
      EXPECT_EQ(slot(p, c->input).kind, runtime::BufferSlot::Kind::kParameter);
    }
  EXPECT_EQ(found, 1u);
  bool reported = false;
  for (const RouteEntry& entry : compiled->report.entries)
    reported = reported || entry.tile.find("all_reduce sum f32 x4") != std::string::npos;
  EXPECT_TRUE(reported);
}

TEST(CollectiveRoute, AProgramWithoutCollectivesCompilesForSeveral) {
  ir::Module m;
  m.name = "plain";
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({4})}, {f32({4})});
  b.ret({b.op1(OpKind::Exponential, {a[0]}, f32({4}))});
  b.endFunction();
  Stages stages;
  StatusOr<Executable> compiled = compileFor(std::move(m), 4, 2, &stages);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  EXPECT_EQ(thunkKinds(compiled->program), (std::vector<std::string>{"launch"}));
}

TEST(CollectiveRoute, TheFingerprintDependsOnTheParticipants) {
  auto make = [] {
    return single(OpKind::AllReduce, {f32({4})}, {f32({4})}, ir::NamedAttrs{},
                  OpKind::Add);
  };
  StatusOr<Executable> two = compileFor(make(), 2, 1);
  StatusOr<Executable> four = compileFor(make(), 4, 1);
  ASSERT_TRUE(two.isOk()) << two.status().toString();
  ASSERT_TRUE(four.isOk()) << four.status().toString();
  EXPECT_NE(two->fingerprint, four->fingerprint);
  // Empty groups are one group of every replica.
  EXPECT_EQ(collectives(four->program)[0]->desc.ranks, 4);
  EXPECT_TRUE(collectives(four->program)[0]->groups.groups.empty());
}

}  // namespace
}  // namespace jft::compiler
