#include "kernel_compiler/cache_dir.h"

#include <cstdlib>

namespace jft::kernel_compiler {

std::optional<std::string> processEnv(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

StatusOr<std::string> defaultCacheDir(const EnvLookup& env) {
  if (auto dir = env("JAX_FLAGTREE_CACHE_DIR")) return *dir;
  if (auto xdg = env("XDG_CACHE_HOME")) return *xdg + "/jax-flagtree";
  if (auto home = env("HOME")) return *home + "/.cache/jax-flagtree";
  return failedPrecondition(
      "no kernel cache directory: set JAX_FLAGTREE_CACHE_DIR (HOME is not set)");
}

}  // namespace jft::kernel_compiler
