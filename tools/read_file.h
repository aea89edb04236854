// Whole-file reads for the subcommands, with errors as Status (a missing
// file is NOT_FOUND naming the path, never an exception).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/status.h"

namespace jft::tools {

// "-" reads standard input.
StatusOr<std::vector<uint8_t>> readFileBytes(const std::string& path);

}  // namespace jft::tools
