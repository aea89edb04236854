// Collectives of a program compiled for one participant (num_replicas *
// num_partitions == 1) -> ordinary ops, with the StableHLO spec's semantics
// for a process group of one:
//   all_reduce, cross-replica-sum   each operand converted to its result's
//                                   element type (the region's E): the
//                                   reduction of one value is that value
//   reduce_scatter                  the same (one part, the whole operand)
//   all_gather                      each operand (the gathered dim times 1)
//   all_to_all                      each operand (split_count must be 1)
//   collective_broadcast            each operand (without the roots operand
//                                   when has_dynamic_root is set)
//   collective_permute              the operand if source_target_pairs holds
//                                   (0, 0), else zeros of its type
//   replica_id, partition_id        the constant 0
// Replica groups must name participant 0 exactly once and nothing else but
// JAX's -1 padding of uneven groups, or be empty (one group of every
// participant). source_target_pairs may only hold (0, 0). Anything else, and
// result types the spec's shape rules do not give, is INVALID_ARGUMENT naming
// the op, its location and the groups. Ops in nested regions are rewritten
// too.
//
// Programs over several participants keep their collectives for the
// collective route instead (collectives_spmd.h). The pipeline (pipeline.h)
// runs one or the other from PipelineOptions::grid.
//
// Before: the module verifies. After: it verifies, holds none of the ops
// above, and computes the values the spec gives for one participant.
#pragma once

#include "ir/module.h"
#include "support/status.h"

namespace jft::passes {

// Returns whether any op changed.
StatusOr<bool> lowerSingleParticipantCollectives(ir::Module& module);

}  // namespace jft::passes
