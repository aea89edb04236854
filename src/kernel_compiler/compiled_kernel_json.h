// CompiledKernel metadata <-> JSON, shared by the worker's result message and
// the cache entry header (both carry the same fields; see compile_protocol.py).
// The binary itself always travels outside the JSON, as a raw payload.
#pragma once

#include "kernel_compiler/compile_types.h"
#include "kernel_compiler/json.h"
#include "support/status.h"

namespace jft::kernel_compiler {

Json compilerIdentityToJson(const CompilerIdentity& identity);
StatusOr<CompilerIdentity> compilerIdentityFromJson(const Json& json);

// Every field but binary, cache_hit and compile_seconds.
Json kernelMetadataToJson(const CompiledKernel& kernel);
// Fills every field but binary, cache_hit and compile_seconds.
StatusOr<CompiledKernel> kernelMetadataFromJson(const Json& json);

}  // namespace jft::kernel_compiler
