// The executable's fingerprint: equal fingerprints promise equal programs.
//
// SHA-256 over the input artifact, every option that changes the generated
// code (mode, autotune level, determinism, target, injected kernel
// failures), the pipeline's own version and the identity of the kernel
// compiler ("none" when no binaries are built; the native compiler's too
// when it built some). Logs and dumps (log, dump_dir) are left out: they
// change what is written, not what runs.
#pragma once

#include <string>
#include <string_view>

#include "compiler/compiler.h"
#include "kernel_compiler/compile_types.h"

namespace jft::compiler {

// Bump when the compiler's output for an unchanged input may change in a way
// a cache keyed by the fingerprint must notice.
inline constexpr std::string_view kPipelineVersion = "jax-flagtree-compiler/1";

std::string compilerIdentityText(const kernel_compiler::CompilerIdentity* identity);

// 64 lowercase hex digits.
std::string fingerprint(std::string_view bytecode, const Options& options,
                        std::string_view compiler_identity);

}  // namespace jft::compiler
