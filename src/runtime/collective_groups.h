// Who talks to whom in one collective of a program compiled for several
// participants. The compiler copies the op's replica_groups, channel_id,
// use_global_device_ids and source_target_pairs into CollectiveGroups; at
// execution each participant (replica r, partition p) resolves them against
// the executable's device assignment into its communicator: the global ids of
// the devices in its process group, in group order, and its rank among them.
//
// The modes are StableHLO's (spec: "Collective ops", process groups):
//   kCrossReplica              groups hold replica ids; one process group per
//                              (group, partition): [(r, p) for r in group]
//   kCrossPartition            groups hold partition ids; one per (group,
//                              replica): [(r, p) for p in group]
//   kCrossReplicaAndPartition  groups hold replica ids; one per group:
//                              [(r, p) for r in group for p in partitions]
//   kFlattenedIds              groups hold flattened ids r * partitions + p
// Empty groups are one group of every id of the mode. collective_permute
// (kCrossReplica or kCrossPartition only) has no groups: its process group is
// every replica (partition) id, and `pairs` are (source, target) of those ids,
// which are then the ranks. Nothing here knows our IR or a library.
#pragma once

#include <cstdint>
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
// named twice, or missing), the layout is malformed, pairs name ids outside
// the mode's range or a source or target twice, or the count does not divide
// among the ranks where the kind needs it.
StatusOr<ResolvedCollective> resolveCollective(const CollectiveDesc& desc,
                                               const CollectiveGroups& groups,
                                               const ParticipantLayout& layout,
                                               int64_t replica, int64_t partition);

}  // namespace jft::runtime
