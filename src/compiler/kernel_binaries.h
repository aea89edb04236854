// The TTIR kernels of a program through src/kernel_compiler: all requests at
// once (the compiler compiles cache misses in parallel), each kernel's binary
// or why not. program_binaries.h decides what a failure means.
#pragma once

#include <vector>

#include "codegen/ttir/kernel.h"
#include "compiler/compiler.h"
#include "kernel_compiler/compile_types.h"
#include "kernel_compiler/kernel_compiler.h"
#include "runtime/program.h"

namespace jft::compiler {

// One kernel's binary as the runtime loads it, and its compile facts for the
// route report (facts.binary dropped).
struct KernelBinary {
  runtime::KernelImage image;
  kernel_compiler::CompiledKernel facts;
};

// Per kernel, in order: its binary, or the compiler's error, or INTERNAL when
// its launch contract does not match its fusion. A kernel whose name
// contains one of options.fail_kernels fails with INTERNAL as a failed
// worker compile would, and is never sent to the compiler (fault injection
// for XLA_MODE=back_fail).
std::vector<StatusOr<KernelBinary>> compileTtirKernels(
    const std::vector<const codegen::ttir::TtirKernel*>& kernels, const Options& options,
    kernel_compiler::KernelCompiler& compiler);

}  // namespace jft::compiler
