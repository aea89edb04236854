// `jft inspect [--summary] [--locations] FILE.mlirbc`: imports a StableHLO portable
// artifact and prints its IR followed by the op census (op_census.h).
// An unreadable or malformed file prints the frontend's error (which names
// the byte offset) on stderr and exits 1.
#pragma once

#include <iosfwd>
#include <span>
#include <string>

namespace jft::tools {

int runInspect(std::span<const std::string> args, std::ostream& out, std::ostream& err);

}  // namespace jft::tools
