// The subset of XLA_FLAGS the plugin honours today.
//
// XLA_FLAGS is a whitespace-separated list of `--name=value` or `--name`
// entries. We read `--xla_dump_to=DIR`; anything else is returned as unknown so
// the caller can warn once.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace jft::pjrt {

struct XlaFlags {
  std::string dumpTo;  // empty: no dumps
  std::vector<std::string> unknown;
};

XlaFlags parseXlaFlags(std::string_view text);
// Reads the XLA_FLAGS environment variable (empty when unset).
XlaFlags xlaFlagsFromEnvironment();

}  // namespace jft::pjrt
