// The XLA_FLAGS the compiler honours.
//
// XLA_FLAGS is a whitespace-separated list of `--name=value` or `--name`
// entries. Known flags: --xla_dump_to=DIR, --xla_gpu_autotune_level=N (0..4,
// as XLA accepts), --xla_gpu_exclude_nondeterministic_ops[=true|false].
// Anything else is returned as unknown so the caller can warn once; a known
// flag with a bad value is an error (XLA refuses it too).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "support/status.h"

namespace jft::compiler {

struct XlaFlags {
  std::string dump_to;  // empty: no dumps
  int autotune_level = 0;
  bool exclude_nondeterministic_ops = false;
  std::vector<std::string> unknown;  // as written, in order
};

// INVALID_ARGUMENT naming the flag when a known flag's value is malformed.
StatusOr<XlaFlags> parseXlaFlags(std::string_view text);

}  // namespace jft::compiler
