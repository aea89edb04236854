// What a serialized executable names as the build that wrote it: the
// project's version, the compiler pipeline's version and the identity of the
// loaded plugin binary itself (the linker's GNU build id, read from memory;
// a hash of the file where there is none), so a blob written by any other
// build (another commit, another toolchain) is refused rather than trusted to
// share our program layout and kernel calling conventions.
#pragma once

#include <string>

namespace jft::pjrt {

// Computed once per process ("jax-flagtree 0.1.0; jax-flagtree-compiler/1;
// binary build-id 08a9..."); "binary unknown" when neither can be read.
const std::string& buildIdentity();

}  // namespace jft::pjrt
