// Collectives of a program compiled for several participants (num_replicas *
// num_partitions > 1) -> the canonical form runtime::CollectiveDesc
// documents, which the compiler turns into one collective thunk per op:
//
//   one operand per op      a variadic op becomes one op per operand (each
//                           with the op's attributes; process groups run
//                           them in the same order everywhere)
//   op dimension outermost  all_gather_dim / scatter_dimension 0: a transpose
//                           brings the dimension to the front and another
//                           takes it back; all_to_all splits its
//                           split_dimension into (split_count, part), moves
//                           split_count to the front, exchanges with
//                           split/concat dimension 0, then moves the received
//                           chunks (sender-major) next to concat_dimension
//                           and merges them into it, per the spec's
//                           split/scatter/concatenate
//   NCCL element types      reducing ops first convert their operand to the
//                           region's type (the spec's to_destination_type);
//                           then 2-, 4- and 16-bit integers are widened to 32
//                           bits (exact: sums and products wrap back when
//                           narrowed, minimum/maximum keep a value);
//                           floats NCCL cannot reduce are widened to f32 for
//                           minimum/maximum (exact) and refused for sums and
//                           products (a wider sum rounds differently); pred
//                           reductions become minimum (and, multiply) or
//                           maximum (or, add) of pred, which the compiler
//                           runs on bytes; complex values stay complex (the
//                           compiler moves them as pairs of their real type)
//                           where the op only moves data or sums; a complex
//                           product, minimum or maximum is refused
//   canonical regions       add / multiply / minimum / maximum of the wire
//                           type (cross-replica-sum becomes an all_reduce)
//
// Checked on the way (collective_form.h for the groups): each result type is
// the one the spec's shape rules give for the group size the attributes
// imply over the participant grid (all_gather: dim * ranks; reduce_scatter:
// dim / ranks; all_to_all: split_count = ranks), and ops whose shapes depend
// on it need groups of one size. collective_broadcast with has_dynamic_root
// is refused (the runtime broadcasts from the group's first process only).
// replica_id and partition_id are left for the compiler (a participant id
// thunk). Errors are INVALID_ARGUMENT (the program breaks the spec) or
// UNIMPLEMENTED (no exact mapping), naming the op, its location and what is
// wrong. Ops in nested regions are rewritten too.
//
// Before: the module verifies. After: it verifies and every collective is in
// the canonical form, computing the values the spec gives.
#pragma once

#include "ir/module.h"
#include "passes/collective_form.h"
#include "support/status.h"

namespace jft::passes {

// Returns whether any op changed. INVALID_ARGUMENT for a grid of fewer than
// two participants (lowerSingleParticipantCollectives is for one).
StatusOr<bool> lowerCollectivesForParticipants(ir::Module& module,
                                               const ParticipantGrid& grid);

}  // namespace jft::passes
