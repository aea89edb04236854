// Localizing a fully manual program: JAX's global view whose whole entry
// function is one sdy.manual_computation over every mesh axis (what jax.pmap
// and jit of a top-level shard_map send for several devices in JAX 0.11).
//
// Such a program needs no partitioner: the manual computation's body, at
// per-device shapes, is each device's program, and JAX hands every device
// exactly its shard of each argument. The rewrite makes @main's body that
// region (its block arguments become @main's, its sdy.return a
// vhlo.return_v1), fixes @main's function type to the per-device types and
// drops the sharding entries from the argument and result attributes (others,
// such as donation's tf.aliasing_output or jax.result_info, stay). The
// collectives inside already name devices by their flattened ids in the
// device assignment (use_global_device_ids), which the compiler lowers for
// replicas x partitions participants.
//
// Anything else (ops outside the manual computation, arguments not passed
// straight in, results not returned straight out, a mesh axis of size > 1
// left automatic, attributes we only hold as bytes) is left alone: the caller
// then refuses the program as a global view (global_view.h).
#pragma once

#include <string>
#include <string_view>

#include "frontend/mlir_tree.h"

namespace jft::frontend::sdy {

// True when `tree` was rewritten; else false, `tree` untouched and `whyNot`
// saying what kept it from being localized.
bool localizeFullyManual(frontend::MTree& tree, std::string& whyNot);

// Whether an attribute name is a sharding's: any that contains "sharding"
// (mhlo.sharding, sdy.sharding).
bool namesSharding(std::string_view key);

}  // namespace jft::frontend::sdy
