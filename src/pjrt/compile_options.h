// CompileOptions: what the plugin needs from a serialized xla.CompileOptionsProto.
//
// JAX sends the whole proto with each compile; we read only where the program
// runs: executable_build_options (field 3) -> device_ordinal (1), num_replicas
// (4), num_partitions (5), device_assignment (9: xla.DeviceAssignmentProto),
// compile_portable_executable (4), and the keys of env_option_overrides (7:
// jax's `compiler_options`). Everything else is skipped by wire type, so
// fields added upstream never break us. Malformed bytes are INVALID_ARGUMENT.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "support/status.h"

namespace jft::pjrt {

struct CompileOptions {
  int num_replicas = 1;
  int num_partitions = 1;
  bool portable = false;
  int64_t device_ordinal = -1;  // -1: not given
  // Device id of (replica r, partition p) at r * num_partitions + p; empty when
  // the proto carries no device assignment.
  std::vector<int64_t> device_assignment;
  // The option names jax.jit(...).lower(...).compile(compiler_options=...)
  // set, in order. XLA takes them as DebugOptions fields, all named xla_*;
  // parsing rejects any other name as XLA does ("No such compile option").
  std::vector<std::string> option_overrides;
};

StatusOr<CompileOptions> parseCompileOptions(std::string_view bytes);

}  // namespace jft::pjrt
