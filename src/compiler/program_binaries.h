// The binaries of a lowered program: TTIR kernels through the kernel
// compiler (kernel_binaries.h), native ones through the native compiler
// (native_binaries.h). A combined launch (horizontal_batches.h) that fails
// to compile is split back into its members' own kernels, compiled alone. Under
// XLA_MODE=back_fail a TTIR kernel that fails to compile sends its group (a loop or
// reduction group the native emitter takes) to the native route: the group is lowered
// again by the native backend, its reason kept in its region's native_reasons, and the
// kernel list and the groups' first_kernel renumbered. Any kernel left without a binary
// fails the compile, all of them listed in one error (compile.cc then plans a back_fail
// program once more with the matmul, conv and attention families off).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "codegen/ttir/kernel.h"
#include "compiler/backends.h"
#include "compiler/compiler.h"
#include "compiler/program_assembly.h"
#include "kernel_compiler/compile_types.h"
#include "kernel_compiler/kernel_compiler.h"
#include "runtime/program.h"

namespace jft::compiler {

// The start of the message of the error a failed kernel build returns.
inline constexpr const char* kKernelCompilationFailed = "kernel compilation failed:";

struct KernelBinaries {
  std::vector<runtime::KernelImage> images;  // one per kernel, same order
  std::vector<kernel_compiler::CompiledKernel>
      compiled;  // binaries dropped: for the report
  // Of the kernel compiler that built the TTIR kernels; none without them
  // (then it does not matter which compiler the workers run).
  std::optional<kernel_compiler::CompilerIdentity> identity;
  // Of the native compiler, when native kernels were built; else empty.
  std::string native_identity;
};

// `kernels` as lowerProgram returned them for `top` (the body of
// `function`); both may change under back_fail, and `on_kernel` then sees
// each kernel made anew.
StatusOr<KernelBinaries> buildProgramBinaries(
    ir::Module& module, const ir::Function& function, RegionCode& top,
    std::vector<codegen::ttir::TtirKernel>& kernels, const Options& options,
    const Backends& backends, kernel_compiler::KernelCompiler& kernel_compiler,
    const std::function<void(const codegen::ttir::TtirKernel&)>& on_kernel);

}  // namespace jft::compiler
