// The native route's kernels (CUDA C, codegen/native/backend.h) as binaries:
// through the NativeCompiler (native_compiler.h), several at once, cached on
// disk with the kernel compiler's cache (kernel_compiler/kernel_cache.h)
// under a key of their own: the source, the entry name and the compiler's
// identity (NVRTC version and architecture).
#pragma once

#include <string>
#include <vector>

#include "codegen/ttir/kernel.h"
#include "compiler/kernel_binaries.h"
#include "compiler/native_compiler.h"
#include "kernel_compiler/kernel_cache.h"

namespace jft::compiler {

// SHA-256 hex over the fields above, framed so no two inputs hash alike.
std::string nativeCacheKey(const std::string& compiler_identity, const std::string& name,
                           const std::string& source);

struct NativeBinaries {
  // Per kernel, in order: its binary (launch contract: one buffer per input
  // and output, no scratch, no dynamic shared memory) or why not. With no
  // compiler, or one whose identity() fails (no libnvrtc), every kernel is
  // UNAVAILABLE saying so.
  std::vector<StatusOr<KernelBinary>> kernels;
  std::string identity;  // the compiler's; empty when it has none
};

// `cache` null: nothing is cached. `compiler` is called from several threads.
NativeBinaries compileNativeKernels(
    const std::vector<const codegen::ttir::TtirKernel*>& kernels,
    NativeCompiler* compiler, const kernel_compiler::KernelCache* cache);

}  // namespace jft::compiler
