// Reading a collective's attributes in a program compiled for several
// participants (num_replicas x num_partitions > 1): who talks to whom, and
// what the reduction region computes. Shared by the lowering to the
// canonical form (collectives_spmd.h) and by the compiler, which reads the
// canonical ops into runtime collective thunks.
//
// Process groups are StableHLO's (spec, "Collective ops"), the mode chosen
// per op:
//   all_reduce, all_gather, reduce_scatter:
//     channel_id <= 0, !use_global_device_ids   cross_replica
//     channel_id > 0,  !use_global_device_ids   cross_replica_and_partition
//     channel_id > 0,   use_global_device_ids   flattened_ids
//     channel_id <= 0,  use_global_device_ids   invalid (C4/C5)
//   all_to_all, collective_broadcast, collective_permute:
//     channel_id <= 0 cross_replica, > 0 cross_partition
//   cross-replica-sum: cross_replica
// replica_groups rows lose JAX's -1 padding of uneven groups; empty (or
// absent) groups are one group of every id of the mode. Groups must hold ids
// of the mode's range (replicas; partitions for cross_partition; replicas
// for cross_replica_and_partition; replicas * partitions for flattened_ids),
// each exactly once, together covering the range: the runtime resolves only
// groups that partition it (collective_broadcast's "processes in no group
// get zeros" is therefore refused too).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ir/module.h"
#include "support/status.h"

namespace jft::passes {

// JAX pads the rows of uneven replica groups with -1 (its
// _device_list_replica_groups_hlo); a padding entry names no participant.
inline constexpr int64_t kReplicaGroupPadding = -1;

struct ParticipantGrid {
  int64_t replicas = 1;
  int64_t partitions = 1;
  int64_t participants() const { return replicas * partitions; }
};

enum class GroupMode : uint8_t {
  kCrossReplica,
  kCrossPartition,
  kCrossReplicaAndPartition,
  kFlattenedIds,
};

const char* groupModeName(GroupMode mode);  // "cross_replica", ...

// all_reduce, all_gather, reduce_scatter, all_to_all, collective_permute,
// collective_broadcast and cross-replica-sum (not replica_id/partition_id).
bool isCollective(ir::OpKind kind);

struct CollectiveGroupsForm {
  GroupMode mode = GroupMode::kCrossReplica;
  std::vector<std::vector<int64_t>> groups;        // padding dropped; empty = all
  std::vector<std::pair<int64_t, int64_t>> pairs;  // collective_permute only
  // Processes in each process group (the communicator's size); -1 when the
  // groups differ in size. collective_permute: every id of the mode.
  int64_t ranks = 0;
};

// The process groups of `op` (a collective: all_reduce, all_gather,
// reduce_scatter, all_to_all, collective_permute, collective_broadcast,
// cross-replica-sum) over `grid`. INVALID_ARGUMENT naming the op, its
// location and the groups when they break the rules above, or a permute's
// pairs name an id outside the mode's range, a source or a target twice.
StatusOr<CollectiveGroupsForm> collectiveGroupsOf(const ir::Module& module,
                                                  const ir::Op& op,
                                                  const ParticipantGrid& grid);

// What a reduction region computes: one binary op of its two scalar
// arguments (either order), of element type `element`.
struct RegionReduction {
  ir::OpKind op = ir::OpKind::Add;  // Add, Multiply, Minimum, Maximum, And, Or
  ir::ElementType element = ir::ElementType::F32;
};

// The region of all_reduce / reduce_scatter `op` as a RegionReduction;
// cross-replica-sum is an add of its operand's type. UNIMPLEMENTED naming
// the op and its location for any other region (xor, a composed function,
// several ops).
StatusOr<RegionReduction> regionReductionOf(const ir::Module& module, const ir::Op& op);

// "all_reduce at model.py:3:4: " + why, as INVALID_ARGUMENT / UNIMPLEMENTED.
Status collectiveError(const ir::Module& module, const ir::Op& op,
                       const std::string& why);
Status collectiveUnsupported(const ir::Module& module, const ir::Op& op,
                             const std::string& why);

// The integer attribute `name` of collective `op`; INVALID_ARGUMENT
// (collectiveError) when the op has none.
StatusOr<int64_t> collectiveIntAttr(const ir::Module& module, const ir::Op& op,
                                    const char* name);

}  // namespace jft::passes
