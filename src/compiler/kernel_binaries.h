// The TTIR kernels of a plan through src/kernel_compiler: all requests at once (the
// compiler compiles cache misses in parallel), every failure reported.
#pragma once

#include <optional>
#include <vector>

#include "codegen/ttir/kernel.h"
#include "compiler/compiler.h"
#include "kernel_compiler/compile_types.h"
#include "kernel_compiler/kernel_compiler.h"
#include "runtime/program.h"

namespace jft::compiler {

struct KernelBinaries {
  std::vector<runtime::KernelImage> images;       // one per kernel, same order
  std::vector<kernel_compiler::CompiledKernel> compiled;  // binaries dropped: for the report
  // Of the compiler that built them; none without kernels (then it does not
  // matter which compiler the workers run).
  std::optional<kernel_compiler::CompilerIdentity> identity;
};

// One error listing each kernel that failed to compile (or whose launch
// contract does not match its fusion). In back_fail mode the message says the
// native route that would take them does not exist yet.
StatusOr<KernelBinaries> buildKernelBinaries(
    const std::vector<codegen::ttir::TtirKernel>& ttir, const Options& options,
    kernel_compiler::KernelCompiler& compiler);

}  // namespace jft::compiler
