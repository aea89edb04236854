// Whether a program compiled for several partitions is already one device's
// program, or JAX's global view that XLA would partition at compile time.
//
// Under jit over a NamedSharding (and shard_map inside it), JAX 0.11 lowers
// with Shardy and hands the plugin the whole computation at global shapes:
// an sdy.mesh, sdy.sharding attributes on arguments, results and sharding
// constraints, and sdy.manual_computation regions (shard_map's body, at
// per-device shapes) (jax/_src/shard_map.py builds sdy.ManualComputationOp;
// the PJRT C API client serializes with mixed dialects, keeping sdy ops).
// jax.pmap is no exception: in JAX 0.11 it is jit of a shard_map over a
// one-axis mesh of its devices (jax/_src/pmap.py), so with two devices or
// more it is an sdy.manual_computation over every mesh axis (with one device
// JAX leaves the manual computation out). XLA then runs Shardy propagation
// and the SPMD partitioner; we do not, and our frontend reads no
// sdy.manual_computation. A
// program whose shardings all replicate every value is the same on every
// device and may run as it is; anything else is refused here rather than run
// at the wrong shapes.
#pragma once

#include <string_view>

#include "frontend/mlir_tree.h"
#include "support/status.h"

namespace jft::pjrt {

// OK when `bytecode` (a StableHLO portable artifact) holds no sharding that
// splits a value over the mesh and no sdy.manual_computation, or cannot be
// read (the compiler then reports why); UNIMPLEMENTED naming what was found
// and what is missing otherwise.
Status refuseGlobalView(std::string_view bytecode, int numPartitions);
// The same over the generic tree the bytecode reader produced.
Status refuseGlobalView(const frontend::MTree& tree, int numPartitions);

}  // namespace jft::pjrt
