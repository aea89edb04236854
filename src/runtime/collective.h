// One collective as the runtime hands it to a collective library (NCCL on
// CUDA; RCCL on HIP would read the same description). The compiler will fill
// it in from stablehlo.all_reduce / all_gather / reduce_scatter / all_to_all /
// collective_permute / collective_broadcast; nothing here knows CUDA or our IR.
//
// One description is the same on every rank of a communicator of `ranks`
// participants (the op's replica or process group, in group order: rank r is
// the group's r-th process). Each rank calls the library with its own input
// and output buffers, dense and row-major, of `type`.
//
// The op's dimension (all_gather_dim, scatter_dimension, split_dimension and
// concat_dimension) is the outermost: the compiler transposes around the op
// when it is not, so here a "chunk" is a contiguous run of elements. What it
// computes is StableHLO's definition for that layout, with `count` the
// elements of each rank's input:
//   kAllReduce: output (count) = reduction over ranks of every rank's input,
//     element-wise.
//   kAllGather: output (ranks * count) = the inputs of ranks 0..ranks-1, one
//     after another.
//   kReduceScatter: count divisible by ranks; output (count / ranks) on rank r
//     = chunk r of the element-wise reduction of every rank's input.
//   kAllToAll: count divisible by ranks (split_count = ranks); chunk j of rank
//     r's input goes to rank j, whose output (count) holds the chunks it
//     received in the order of their sender ranks.
//   kCollectivePermute: `pairs` (source, target) of communicator ranks (the
//     compiler maps source_target_pairs' process ids onto them), no source
//     twice and no target twice; output (count) on a target = the input of
//     its source; a rank that is no pair's target outputs zeros.
//   kCollectiveBroadcast: output (count) = the input of rank 0 (the group's
//     first process: has_dynamic_root = false) on every rank.
// `reduction` is read only by the reducing kinds (kAllReduce,
// kReduceScatter); `pairs` only by kCollectivePermute.
//
// Buffers per rank, in order: the input, the output. They must not overlap,
// except that all_reduce and collective_broadcast may run in place (input ==
// output), as NCCL allows.
//
// count 0 is empty: the buffers hold nothing and no rank does anything (every
// rank sees the same description, so none waits on another).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "support/status.h"

namespace jft::runtime {

enum class CollectiveKind : uint8_t {
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kAllToAll,
  kCollectivePermute,
  kCollectiveBroadcast,
};

// The element types NCCL moves and reduces (its f8 types since NCCL 2.24, on
// sm_90 and newer GPUs; elsewhere NCCL refuses them with ncclInvalidArgument).
enum class CollectiveType : uint8_t {
  kS8,
  kU8,
  kS32,
  kU32,
  kS64,
  kU64,
  kF16,
  kBF16,
  kF32,
  kF64,
  kF8E4M3FN,
  kF8E5M2,
};

enum class CollectiveReduction : uint8_t { kSum, kProd, kMin, kMax };

struct CollectiveDesc {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  CollectiveType type = CollectiveType::kF32;
  CollectiveReduction reduction = CollectiveReduction::kSum;
  int64_t ranks = 1;                               // participants of the communicator
  int64_t count = 0;                               // elements of each rank's input
  std::vector<std::pair<int64_t, int64_t>> pairs;  // (source, target), permute only
  friend bool operator==(const CollectiveDesc&, const CollectiveDesc&) = default;
};

// "all_reduce sum f32 x1024 over 4 ranks", "collective_permute f32 x8 over 2
// ranks pairs {0->1, 1->0}" for errors and the route report.
std::string collectiveText(const CollectiveDesc& desc);

// "all_reduce", "s32", "sum": the StableHLO spellings.
const char* collectiveKindName(CollectiveKind kind);
const char* collectiveTypeName(CollectiveType type);
const char* collectiveReductionName(CollectiveReduction reduction);

// Whether the kind combines values with `reduction`.
bool collectiveReduces(CollectiveKind kind);

// INVALID_ARGUMENT, naming the description, unless ranks >= 1, count >= 0,
// count divisible by ranks for kReduceScatter and kAllToAll, pairs empty but
// for kCollectivePermute, and there every rank in [0, ranks) with no source
// and no target twice.
Status validateCollective(const CollectiveDesc& desc);

// Whether the collective moves nothing (count 0).
bool collectiveIsEmpty(const CollectiveDesc& desc);

// Bytes of one element: 1, 2, 4 or 8.
int64_t collectiveElementBytes(CollectiveType type);

// Elements / bytes of one rank's input and output buffers (see above).
int64_t collectiveInputCount(const CollectiveDesc& desc);
int64_t collectiveOutputCount(const CollectiveDesc& desc);
uint64_t collectiveInputBytes(const CollectiveDesc& desc);
uint64_t collectiveOutputBytes(const CollectiveDesc& desc);

// kCollectivePermute: the rank `rank` sends to / receives from, -1 for none.
int64_t permuteTargetOf(const CollectiveDesc& desc, int64_t rank);
int64_t permuteSourceOf(const CollectiveDesc& desc, int64_t rank);

}  // namespace jft::runtime
