// Where compiled kernels are cached on disk.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "support/status.h"

namespace jft::kernel_compiler {

// Reads an environment variable; nullopt when unset or empty.
using EnvLookup = std::function<std::optional<std::string>(const char* name)>;
std::optional<std::string> processEnv(const char* name);

// JAX_FLAGTREE_CACHE_DIR when set; else $XDG_CACHE_HOME/jax-flagtree; else
// $HOME/.cache/jax-flagtree. FAILED_PRECONDITION when none can be formed.
// The directory is not created here.
StatusOr<std::string> defaultCacheDir(const EnvLookup& env = processEnv);

}  // namespace jft::kernel_compiler
