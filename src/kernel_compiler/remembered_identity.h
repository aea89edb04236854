// The compiler identity remembered per installed compiler build, so that a
// process whose kernels are all cached never starts a worker to learn it.
//
// The identity (name, versions, build id) is part of every kernel cache key,
// and asking a worker means importing the compiler (a second or more). A
// worker's hello names the build it imported by a fingerprint
// (python/jax_flagtree/compiler_fingerprint.py: cheap to compute without
// importing it, and changed by any reinstall or rebuild); its identity is
// kept in DIR/compilers/<fingerprint>.json, written atomically. The plugin
// computes the same fingerprint in the user's process and looks it up.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "kernel_compiler/compile_types.h"
#include "support/status.h"

namespace jft::kernel_compiler {

// 16 to 64 lowercase hex digits: anything else never becomes a file name.
bool isCompilerFingerprint(std::string_view text);

class RememberedIdentities {
 public:
  explicit RememberedIdentities(std::string cache_dir) : dir_(std::move(cache_dir)) {}

  std::string path(const std::string& fingerprint) const;
  // nullopt for an unknown build, a malformed fingerprint or an unreadable
  // record (which is then asked for again and rewritten).
  std::optional<CompilerIdentity> load(const std::string& fingerprint) const;
  Status store(const std::string& fingerprint, const CompilerIdentity& identity) const;

 private:
  std::string dir_;
};

}  // namespace jft::kernel_compiler
