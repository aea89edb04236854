// Whole-file reads and crash-safe writes (kernel cache, failure and compile
// dumps, autotune cache).
#pragma once

#include <string>
#include <string_view>

#include "support/status.h"

namespace jft {

// Writes bytes to a temporary file in path's directory, flushes it to disk and
// renames it over path, so that readers see the old file or the complete new
// one, never a prefix. On failure nothing is left behind (the temporary file
// is removed) and path is untouched.
Status writeFileAtomically(const std::string& path, std::string_view bytes);

// NOT_FOUND when the file does not exist.
StatusOr<std::string> readWholeFile(const std::string& path);

// mkdir -p; succeeds when the directory already exists.
Status makeDirectories(const std::string& path);

}  // namespace jft
