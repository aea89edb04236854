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
// and the SPMD partitioner; we do not, and the VHLO import reads no
// sdy.manual_computation. This stage runs between the bytecode reader and the
// import (compiler/compile_artifact.h). So:
// * a program whose shardings all replicate every value is the same on every
//   device and runs as it is;
// * a fully manual program (localize_manual.h: @main is one manual
//   computation over every mesh axis, as pmap and a top-level shard_map
//   give) is compiled as its body, each device's program;
// * anything else is refused (UNIMPLEMENTED, "global view") rather than run
//   at the wrong shapes.
#pragma once

#include <string>

#include "frontend/mlir_tree.h"
#include "support/status.h"

namespace jft::frontend::sdy {

// OK when `tree` holds no sharding that splits a value over the mesh and no
// sdy.manual_computation; UNIMPLEMENTED naming what was found and what is
// missing otherwise (`whyNot`, when given, says why it was not localized).
Status refuseGlobalView(const frontend::MTree& tree, int num_partitions,
                        const std::string& whyNot = "");

// Prepares `tree`, read from a program compiled for `num_partitions` > 1:
// false when it runs as it is (no global view); true when it was fully
// manual and is now localized in place (its body is @main); else the
// refusal, `tree` untouched.
StatusOr<bool> localizeGlobalView(frontend::MTree& tree, int num_partitions);

}  // namespace jft::frontend::sdy
