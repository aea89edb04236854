// Who talks to whom in one collective of a program compiled for several
// participants. The compiler copies the op's replica_groups, channel_id,
// use_global_device_ids and source_target_pairs into CollectiveGroups; at
// execution each participant (replica r, partition p) resolves them against
// the executable's device assignment into its communicator: the global ids of
// the devices in its process group, in group order, and its rank among them.
//
// The modes are StableHLO's (spec: "Collective ops", process groups), with R
// replicas and P partitions:
//   kCrossReplica              groups hold replica ids; one process group per
//                              (group, partition p): [(r, p) for r in group]
//   kCrossPartition            groups hold partition ids; one per (group,
//                              replica r): [(r, p) for p in group]
//   kCrossReplicaAndPartition  groups hold replica ids; one per group, the
//                              partition outermost: [(r, p) for p in 0..P-1
//                              for r in group]
//   kFlattenedIds              groups hold flattened ids r * P + p; one per
//                              group: [(f / P, f % P) for f in group]
// Empty groups are one group of every id of the mode. Groups must name every
// id of the mode once, except for collective_broadcast, whose spec lets a
// process belong to no group: it outputs zeros (resolved below as a permute
// of one rank with no pairs). Groups of different sizes are refused where
// the group size sets the output's size (all_gather, reduce_scatter,
// all_to_all: their spec takes a rectangular replica_groups); all_reduce and
// collective_broadcast take them.
//
// collective_permute (kCrossReplica or kCrossPartition only) has no groups:
// its process group is every replica (partition) id of the participant's
// partition (replica), and `pairs` are (source, target) of those ids, which
// are then the ranks. The spec's process groups of one pair each give the
// same values; one communicator over all the ids serves every pair.
// Nothing here knows our IR or a library.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/collective.h"
#include "support/status.h"

namespace jft::runtime {

enum class CollectiveGroupMode : uint8_t {
  kCrossReplica,
  kCrossPartition,
  kCrossReplicaAndPartition,
  kFlattenedIds,
};

struct CollectiveGroups {
  CollectiveGroupMode mode = CollectiveGroupMode::kCrossReplica;
  std::vector<std::vector<int64_t>> groups;        // empty: one group of all ids
  std::vector<std::pair<int64_t, int64_t>> pairs;  // collective_permute only
  friend bool operator==(const CollectiveGroups&, const CollectiveGroups&) = default;
};

// Where an executable runs: the global device id of (replica r, partition p)
// at device_ids[r * partitions + p].
struct ParticipantLayout {
  int64_t replicas = 1;
  int64_t partitions = 1;
  std::vector<int64_t> device_ids;
};

// One participant's view of a collective: the description with `ranks` (and
// a permute's `pairs`, as ranks) filled in, the global device ids of its
// process group in rank order, and its own rank.
struct ResolvedCollective {
  CollectiveDesc desc;
  std::vector<int64_t> clique;
  int64_t rank = 0;
};

// `desc` as the compiler left it (`count` per rank; ranks and pairs are
// overwritten) for participant (replica, partition). INVALID_ARGUMENT, naming
// the groups, when they do not partition the mode's ids (an id out of range,
// named twice, or missing but for collective_broadcast), a group is empty or
// of another size where the kind needs them even, the layout is malformed
// (counts below 1, device_ids not replicas x partitions distinct ids, the
// participant outside it), pairs name ids outside the mode's range or a
// source or target twice, the mode does not fit the kind (permute: cross
// replica or cross partition, with pairs and no groups; the others: no
// pairs), or the count does not divide among the ranks where the kind needs
// it.
StatusOr<ResolvedCollective> resolveCollective(const CollectiveDesc& desc,
                                               const CollectiveGroups& groups,
                                               const ParticipantLayout& layout,
                                               int64_t replica, int64_t partition);

// The checks of resolveCollective that need no layout (program_check runs
// them at load): the mode fits the kind, no group is empty, no id is
// negative or named twice, groups are even where the kind needs it, pairs
// name no negative id and no source or target twice.
Status checkCollectiveGroups(const CollectiveDesc& desc, const CollectiveGroups& groups);

// The sizes of the process groups `groups` makes when they are known without
// the layout (every explicit group of kCrossReplica, kCrossPartition and
// kFlattenedIds); nullopt when they depend on the replica or partition count
// (empty groups, kCrossReplicaAndPartition, collective_permute).
std::optional<std::vector<int64_t>> knownGroupSizes(const CollectiveGroups& groups);

// "cross_replica groups {{0,1},{2,3}}", "cross_partition pairs {0->1, 1->0}"
// for errors.
std::string collectiveGroupsText(const CollectiveGroups& groups);
const char* collectiveGroupModeName(CollectiveGroupMode mode);

}  // namespace jft::runtime
