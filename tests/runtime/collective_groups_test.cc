// resolveCollective against process groups worked by hand from the StableHLO
// spec ("Collective ops": cross_replica, cross_partition,
// cross_replica_and_partition, flattened_ids; collective_permute's and
// collective_broadcast's sections), on 2 replicas x 2 partitions placed on
// devices [5, 7, 9, 11]: (r0,p0)=5, (r0,p1)=7, (r1,p0)=9, (r1,p1)=11.
#include "runtime/collective_groups.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace jft::runtime {
namespace {

using Mode = CollectiveGroupMode;
using Ids = std::vector<int64_t>;

ParticipantLayout twoByTwo() {
  return ParticipantLayout{2, 2, {5, 7, 9, 11}};
}

CollectiveDesc op(CollectiveKind kind, int64_t count = 8) {
  CollectiveDesc d;
  d.kind = kind;
  d.type = CollectiveType::kF32;
  d.count = count;
  return d;  // ranks stay 1: resolution fills them in
}

CollectiveGroups groups(Mode mode, std::vector<Ids> ids) {
  CollectiveGroups g;
  g.mode = mode;
  g.groups = std::move(ids);
  return g;
}

CollectiveGroups pairs(Mode mode, std::vector<std::pair<int64_t, int64_t>> p) {
  CollectiveGroups g;
  g.mode = mode;
  g.pairs = std::move(p);
  return g;
}

ResolvedCollective resolve(const CollectiveDesc& d, const CollectiveGroups& g,
                           const ParticipantLayout& layout, int64_t replica,
                           int64_t partition) {
  StatusOr<ResolvedCollective> r = resolveCollective(d, g, layout, replica, partition);
  EXPECT_TRUE(r.isOk()) << r.status().toString();
  return r.isOk() ? *r : ResolvedCollective{};
}

// The refusal's message, which must name the groups.
std::string refusal(const CollectiveDesc& d, const CollectiveGroups& g,
                    const ParticipantLayout& layout = twoByTwo(), int64_t replica = 0,
                    int64_t partition = 0) {
  StatusOr<ResolvedCollective> r = resolveCollective(d, g, layout, replica, partition);
  EXPECT_FALSE(r.isOk());
  if (r.isOk()) return "";
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << r.status().toString();
  EXPECT_NE(r.status().message().find(collectiveGroupsText(g)), std::string::npos)
      << r.status().message();
  return r.status().message();
}

// cross_replica [[0,1]]: one group per partition, [(0,p), (1,p)].
TEST(ResolveCollective, CrossReplicaGroupsPairReplicasOfOnePartition) {
  const CollectiveDesc d = op(CollectiveKind::kAllReduce);
  const CollectiveGroups g = groups(Mode::kCrossReplica, {{0, 1}});
  ResolvedCollective r = resolve(d, g, twoByTwo(), 1, 0);
  EXPECT_EQ(r.clique, Ids({5, 9}));
  EXPECT_EQ(r.rank, 1);
  EXPECT_EQ(r.desc.ranks, 2);
  EXPECT_EQ(r.desc.count, 8);
  r = resolve(d, g, twoByTwo(), 0, 1);
  EXPECT_EQ(r.clique, Ids({7, 11}));
  EXPECT_EQ(r.rank, 0);
}

// cross_partition [[0,1]]: one group per replica, [(r,0), (r,1)].
TEST(ResolveCollective, CrossPartitionGroupsPairPartitionsOfOneReplica) {
  const CollectiveGroups g = groups(Mode::kCrossPartition, {{0, 1}});
  ResolvedCollective r = resolve(op(CollectiveKind::kAllToAll), g, twoByTwo(), 1, 0);
  EXPECT_EQ(r.clique, Ids({9, 11}));
  EXPECT_EQ(r.rank, 0);
  r = resolve(op(CollectiveKind::kAllToAll), g, twoByTwo(), 0, 1);
  EXPECT_EQ(r.clique, Ids({5, 7}));
  EXPECT_EQ(r.rank, 1);
  EXPECT_EQ(r.desc.ranks, 2);
}

// cross_replica_and_partition [[0,1]]: one group, partition outermost:
// [(0,0), (1,0), (0,1), (1,1)] = devices [5, 9, 7, 11].
TEST(ResolveCollective, CrossReplicaAndPartitionPutsThePartitionOutermost) {
  const CollectiveGroups g = groups(Mode::kCrossReplicaAndPartition, {{0, 1}});
  const CollectiveDesc d = op(CollectiveKind::kAllGather, 3);
  const int64_t want[2][2] = {{0, 2}, {1, 3}};  // rank of (r, p)
  for (int64_t replica = 0; replica < 2; ++replica)
    for (int64_t partition = 0; partition < 2; ++partition) {
      ResolvedCollective r = resolve(d, g, twoByTwo(), replica, partition);
      EXPECT_EQ(r.clique, Ids({5, 9, 7, 11}));
      EXPECT_EQ(r.rank, want[replica][partition]);
      EXPECT_EQ(r.desc.ranks, 4);
      EXPECT_EQ(collectiveOutputCount(r.desc), 12);
    }
}

// flattened_ids [[0,2],[1,3]]: id r*2+p, so {(0,0),(1,0)} and {(0,1),(1,1)}.
TEST(ResolveCollective, FlattenedIdsNameProcessesDirectly) {
  const CollectiveGroups g = groups(Mode::kFlattenedIds, {{0, 2}, {1, 3}});
  ResolvedCollective r = resolve(op(CollectiveKind::kAllReduce), g, twoByTwo(), 1, 1);
  EXPECT_EQ(r.clique, Ids({7, 11}));
  EXPECT_EQ(r.rank, 1);
  r = resolve(op(CollectiveKind::kAllReduce), g, twoByTwo(), 1, 0);
  EXPECT_EQ(r.clique, Ids({5, 9}));
  EXPECT_EQ(r.rank, 1);
  // Group order is rank order: [[3,0],[2,1]] puts (1,1) first.
  r = resolve(op(CollectiveKind::kAllReduce),
              groups(Mode::kFlattenedIds, {{3, 0}, {2, 1}}), twoByTwo(), 0, 0);
  EXPECT_EQ(r.clique, Ids({11, 5}));
  EXPECT_EQ(r.rank, 1);
}

// Empty groups: one group of every id of the mode.
TEST(ResolveCollective, EmptyGroupsAreOneGroupOfEveryId) {
  const CollectiveDesc d = op(CollectiveKind::kAllReduce);
  ResolvedCollective r = resolve(d, groups(Mode::kCrossReplica, {}), twoByTwo(), 0, 1);
  EXPECT_EQ(r.clique, Ids({7, 11}));
  EXPECT_EQ(r.rank, 0);
  r = resolve(d, groups(Mode::kCrossPartition, {}), twoByTwo(), 1, 1);
  EXPECT_EQ(r.clique, Ids({9, 11}));
  EXPECT_EQ(r.rank, 1);
  r = resolve(d, groups(Mode::kCrossReplicaAndPartition, {}), twoByTwo(), 0, 1);
  EXPECT_EQ(r.clique, Ids({5, 9, 7, 11}));
  EXPECT_EQ(r.rank, 2);
  r = resolve(d, groups(Mode::kFlattenedIds, {}), twoByTwo(), 1, 0);
  EXPECT_EQ(r.clique, Ids({5, 7, 9, 11}));
  EXPECT_EQ(r.rank, 2);
  EXPECT_EQ(r.desc.ranks, 4);
}

// One participant alone: a clique of its own device.
TEST(ResolveCollective, OneParticipantIsACliqueOfOne) {
  ParticipantLayout one{1, 1, {3}};
  ResolvedCollective r =
      resolve(op(CollectiveKind::kAllReduce), groups(Mode::kCrossReplica, {}), one, 0, 0);
  EXPECT_EQ(r.clique, Ids({3}));
  EXPECT_EQ(r.rank, 0);
  EXPECT_EQ(r.desc.ranks, 1);
}

// collective_permute across partitions, pairs (0,1),(1,0): the communicator
// is every partition of the participant's replica, the pairs its ranks.
TEST(ResolveCollective, PermutePairsBecomeRanksOverEveryId) {
  const CollectiveGroups g = pairs(Mode::kCrossPartition, {{0, 1}, {1, 0}});
  ResolvedCollective r =
      resolve(op(CollectiveKind::kCollectivePermute), g, twoByTwo(), 1, 0);
  EXPECT_EQ(r.clique, Ids({9, 11}));
  EXPECT_EQ(r.rank, 0);
  EXPECT_EQ(r.desc.ranks, 2);
  EXPECT_EQ(r.desc.pairs, g.pairs);
  EXPECT_EQ(permuteSourceOf(r.desc, r.rank), 1);
  r = resolve(op(CollectiveKind::kCollectivePermute),
              pairs(Mode::kCrossReplica, {{0, 1}, {1, 0}}), twoByTwo(), 1, 1);
  EXPECT_EQ(r.clique, Ids({7, 11}));
  EXPECT_EQ(r.rank, 1);
}

// The spec's example: 3 replicas, pairs (0,1),(1,2): replica 0 receives
// nothing (zeros), replica 2 receives replica 1's operand.
TEST(ResolveCollective, APermuteParticipantNoPairTargetsHasNoSource) {
  ParticipantLayout three{3, 1, {20, 21, 22}};
  const CollectiveGroups g = pairs(Mode::kCrossReplica, {{0, 1}, {1, 2}});
  ResolvedCollective r = resolve(op(CollectiveKind::kCollectivePermute), g, three, 0, 0);
  EXPECT_EQ(r.clique, Ids({20, 21, 22}));
  EXPECT_EQ(permuteSourceOf(r.desc, r.rank), -1);
  EXPECT_EQ(permuteTargetOf(r.desc, r.rank), 1);
  r = resolve(op(CollectiveKind::kCollectivePermute), g, three, 2, 0);
  EXPECT_EQ(r.rank, 2);
  EXPECT_EQ(permuteSourceOf(r.desc, r.rank), 1);
  EXPECT_EQ(permuteTargetOf(r.desc, r.rank), -1);
}

// The spec's collective_broadcast example: 4 replicas, groups [[2,1]];
// replica 1 receives replica 2's operand (rank 0 of its group), replicas 0
// and 3 are in no group and output zeros.
TEST(ResolveCollective, BroadcastOutsideEveryGroupOutputsZeros) {
  ParticipantLayout four{4, 1, {0, 1, 2, 3}};
  const CollectiveGroups g = groups(Mode::kCrossReplica, {{2, 1}});
  const CollectiveDesc d = op(CollectiveKind::kCollectiveBroadcast, 2);
  ResolvedCollective r = resolve(d, g, four, 1, 0);
  EXPECT_EQ(r.clique, Ids({2, 1}));
  EXPECT_EQ(r.rank, 1);
  EXPECT_EQ(r.desc.kind, CollectiveKind::kCollectiveBroadcast);
  r = resolve(d, g, four, 3, 0);
  EXPECT_EQ(r.clique, Ids({3}));
  EXPECT_EQ(r.rank, 0);
  EXPECT_EQ(r.desc.kind, CollectiveKind::kCollectivePermute);
  EXPECT_EQ(r.desc.ranks, 1);
  EXPECT_TRUE(r.desc.pairs.empty());
  EXPECT_EQ(collectiveOutputCount(r.desc), 2);
}

// all_reduce's output does not depend on the group size: groups may differ.
TEST(ResolveCollective, AllReduceTakesGroupsOfDifferentSizes) {
  const CollectiveGroups g = groups(Mode::kFlattenedIds, {{0}, {1, 2, 3}});
  ResolvedCollective r = resolve(op(CollectiveKind::kAllReduce), g, twoByTwo(), 0, 1);
  EXPECT_EQ(r.clique, Ids({7, 9, 11}));
  EXPECT_EQ(r.rank, 0);
  r = resolve(op(CollectiveKind::kAllReduce), g, twoByTwo(), 0, 0);
  EXPECT_EQ(r.clique, Ids({5}));
}

TEST(ResolveCollective, ReduceScatterSplitsTheCountAmongTheGroup) {
  ResolvedCollective r = resolve(op(CollectiveKind::kReduceScatter, 8),
                                 groups(Mode::kFlattenedIds, {}), twoByTwo(), 0, 0);
  EXPECT_EQ(r.desc.ranks, 4);
  EXPECT_EQ(collectiveOutputCount(r.desc), 2);
  EXPECT_NE(
      refusal(op(CollectiveKind::kReduceScatter, 6), groups(Mode::kFlattenedIds, {}))
          .find("not divisible"),
      std::string::npos);
}

TEST(ResolveCollective, MalformedGroupsAreRefused) {
  const CollectiveDesc d = op(CollectiveKind::kAllReduce);
  EXPECT_NE(refusal(op(CollectiveKind::kAllGather),
                    groups(Mode::kFlattenedIds, {{0}, {1, 2, 3}}))
                .find("differ in size"),
            std::string::npos);
  EXPECT_NE(refusal(d, groups(Mode::kCrossReplica, {{0, 1}, {1, 0}}))
                .find("id 1 is in two groups"),
            std::string::npos);
  EXPECT_NE(
      refusal(d, groups(Mode::kCrossReplica, {{0, 2}})).find("id 2 is outside [0, 2)"),
      std::string::npos);
  EXPECT_NE(refusal(d, groups(Mode::kCrossReplica, {{0}})).find("name 1 of the 2 ids"),
            std::string::npos);
  EXPECT_NE(refusal(d, groups(Mode::kFlattenedIds, {{0, 1}})).find("name 2 of the 4 ids"),
            std::string::npos);
  EXPECT_NE(
      refusal(d, groups(Mode::kCrossReplica, {{0, 1}, {}})).find("group 1 is empty"),
      std::string::npos);
  EXPECT_NE(refusal(d, groups(Mode::kCrossReplica, {{-1, 0}})).find("negative"),
            std::string::npos);
  EXPECT_NE(
      refusal(d, pairs(Mode::kCrossReplica, {{0, 1}})).find("only collective_permute"),
      std::string::npos);
}

TEST(ResolveCollective, MalformedPermutesAreRefused) {
  const CollectiveDesc d = op(CollectiveKind::kCollectivePermute);
  EXPECT_NE(refusal(d, pairs(Mode::kCrossPartition, {{0, 1}, {0, 0}}))
                .find("id 0 is the source of two pairs"),
            std::string::npos);
  EXPECT_NE(refusal(d, pairs(Mode::kCrossPartition, {{0, 1}, {1, 1}}))
                .find("id 1 is the target of two pairs"),
            std::string::npos);
  EXPECT_NE(refusal(d, pairs(Mode::kCrossPartition, {{0, 2}})).find("outside [0, 2)"),
            std::string::npos);
  EXPECT_NE(refusal(d, pairs(Mode::kFlattenedIds, {{0, 1}})).find("across replicas"),
            std::string::npos);
  CollectiveGroups both = pairs(Mode::kCrossReplica, {{0, 1}});
  both.groups = {{0, 1}};
  EXPECT_NE(refusal(d, both).find("takes pairs, not groups"), std::string::npos);
}

TEST(ResolveCollective, MalformedLayoutsAndParticipantsAreRefused) {
  const CollectiveDesc d = op(CollectiveKind::kAllReduce);
  const CollectiveGroups g = groups(Mode::kCrossReplica, {});
  EXPECT_NE(refusal(d, g, ParticipantLayout{2, 2, {5, 7, 9}}).find("lists 3 devices"),
            std::string::npos);
  EXPECT_NE(refusal(d, g, ParticipantLayout{2, 2, {5, 7, 9, 5}}).find("device 5 twice"),
            std::string::npos);
  EXPECT_NE(refusal(d, g, ParticipantLayout{0, 2, {}}).find("is empty"),
            std::string::npos);
  EXPECT_NE(refusal(d, g, twoByTwo(), 2, 0).find("outside the device assignment"),
            std::string::npos);
  EXPECT_NE(refusal(d, g, twoByTwo(), 0, -1).find("outside the device assignment"),
            std::string::npos);
}

TEST(CollectiveGroups, KnownSizesNeedExplicitGroupsIndependentOfTheLayout) {
  EXPECT_EQ(knownGroupSizes(groups(Mode::kCrossReplica, {{0, 1}, {2, 3}})), Ids({2, 2}));
  EXPECT_EQ(knownGroupSizes(groups(Mode::kFlattenedIds, {{0}, {1, 2, 3}})), Ids({1, 3}));
  EXPECT_EQ(knownGroupSizes(groups(Mode::kCrossReplica, {})), std::nullopt);
  EXPECT_EQ(knownGroupSizes(groups(Mode::kCrossReplicaAndPartition, {{0, 1}})),
            std::nullopt);
  EXPECT_EQ(knownGroupSizes(pairs(Mode::kCrossReplica, {{0, 1}})), std::nullopt);
}

TEST(CollectiveGroups, TextNamesModeGroupsAndPairs) {
  EXPECT_EQ(collectiveGroupsText(groups(Mode::kCrossReplica, {{0, 1}, {2, 3}})),
            "cross_replica groups {{0,1},{2,3}}");
  EXPECT_EQ(collectiveGroupsText(pairs(Mode::kCrossPartition, {{0, 1}, {1, 0}})),
            "cross_partition groups {} pairs {0->1, 1->0}");
  EXPECT_EQ(collectiveGroupsText(groups(Mode::kFlattenedIds, {})),
            "flattened_ids groups {}");
}

}  // namespace
}  // namespace jft::runtime
