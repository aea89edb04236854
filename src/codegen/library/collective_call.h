// A group of the collective route (one op, in the canonical form of
// passes/collectives_spmd.h) as the runtime thunk that runs it: a
// runtime::CollectiveThunk for a collective, a runtime::ParticipantIdThunk
// for replica_id / partition_id. The assembler (program_assembly.h) binds
// the IR values to slots.
//
// CollectiveDesc: the kind (cross-replica-sum is an all_reduce), the NCCL
// type of the element (pred and the other one-byte types NCCL lacks move as
// u8, complex values as pairs of their real type: count doubles), the
// region's reduction, `count` = elements of each rank's input, `ranks` = the
// group size the attributes imply (each participant's runtime resolves it
// again), a permute's pairs. CollectiveGroups: the StableHLO mode
// (passes/collective_form.h), replica_groups without JAX's -1 padding, a
// permute's source_target_pairs. The op's result type must be what the
// description produces (all_gather: ranks * count elements; reduce_scatter:
// count / ranks): INVALID_ARGUMENT naming the op and its location otherwise,
// and for an op the pass did not leave canonical (INTERNAL would blame us
// for IR a caller may have built by hand).
#pragma once

#include <cstddef>
#include <string>

#include "fusion/fusion.h"
#include "ir/module.h"
#include "passes/collective_form.h"
#include "runtime/program.h"
#include "support/status.h"

namespace jft::codegen::library {

struct CollectiveCall {
  size_t fusion = 0;  // index into plan.fusions
  // A participant id (replica_id / partition_id) or a collective.
  bool participant_id = false;
  bool partition = false;  // participant_id: partition_id
  runtime::CollectiveDesc desc;
  runtime::CollectiveGroups groups;
  ir::ValueId input = 0;  // collectives only
  ir::ValueId output = 0;
};

// The call of `plan.fusions[g]`, a kCollective group of `scope`.
StatusOr<CollectiveCall> lowerCollectiveGroup(const ir::Module& module,
                                              const ir::Function& scope,
                                              const fusion::Plan& plan, size_t g,
                                              const passes::ParticipantGrid& grid);

// "all_reduce sum f32 x1024 over 4 ranks, cross_replica [[0, 1], [2, 3]]",
// "replica_id": the route report's column for the group.
std::string collectiveCallText(const CollectiveCall& call);

}  // namespace jft::codegen::library
