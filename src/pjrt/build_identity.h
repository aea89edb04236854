// What a serialized executable names as the build that wrote it: the
// project's version, the compiler pipeline's version and a hash of the
// loaded plugin binary itself, so a blob written by any other build (another
// commit, another toolchain) is refused rather than trusted to share our
// program layout and kernel calling conventions.
#pragma once

#include <string>

namespace jft::pjrt {

// Computed once per process ("jax-flagtree 0.1.0; jax-flagtree-compiler/1;
// binary 1a2b..."); "binary unknown" when the file cannot be read.
const std::string& buildIdentity();

}  // namespace jft::pjrt
