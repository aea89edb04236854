// ClientOptions: the create options JAX passes to PJRT_Client_Create.
//
// Our Python registration passes `python_executable` and `worker_module` (used to
// start compile workers), `compiler_fingerprint` (the installed Triton/FlagTree
// build, under which the compiler's identity is remembered) and, when
// XLA_FLAGTREE_COMPILE_WORKERS is set,
// `compile_workers` (how many kernels compile at once); JAX adds its own
// (`visible_devices`, allocator knobs, `platform_name`, and under jax.distributed
// `node_id` and `num_nodes`: this process's index and the job's process count). The
// allocator settings JAX's CUDA plugin derives from XLA_PYTHON_CLIENT_ALLOCATOR /
// _MEM_FRACTION / _PREALLOCATE
// (`allocator`, `memory_fraction`, `preallocate`; our Python registration passes
// the same) become `memory`. Options we do not use are collected in
// `ignored` so the client can say so once, never failing on them.
#pragma once

#include <string>
#include <vector>

#include "pjrt/abi.h"
#include "runtime/memory_budget.h"
#include "support/status.h"

namespace jft::pjrt {

struct ClientOptions {
  std::string python_executable;
  std::string worker_module;
  std::string compiler_fingerprint;
  std::vector<int> visible_devices;  // empty: every GPU
  int node_id = 0;
  int num_nodes = 1;
  int compile_workers = 0;  // 0: the compiler's default
  runtime::MemoryOptions memory = runtime::MemoryOptions::jaxDefaults();
  std::vector<std::string> ignored;
};

// INVALID_ARGUMENT for malformed entries (null name, wrong value type for a known
// option, negative device ordinal, num_nodes below 1, node_id outside
// [0, num_nodes), an allocator other than default/platform/bfc/cuda_async, a
// memory_fraction outside (0, 1]).
StatusOr<ClientOptions> parseClientOptions(const PJRT_NamedValue* options, size_t count);

}  // namespace jft::pjrt
