// A compiled kernel in the runtime's terms: src/kernel_compiler reports the launch
// parameters with their roles; the runtime wants buffers and scratch slices.
#pragma once

#include <cstddef>
#include <string>

#include "kernel_compiler/compile_types.h"
#include "runtime/program.h"
#include "support/status.h"

namespace jft::compiler {

// INTERNAL, naming the kernel, when its parameters do not match our TTIR
// contract: exactly `buffer_params` pointer arguments, then only scratch
// pointers (a scalar or hidden parameter has nothing to be passed from).
StatusOr<runtime::KernelImage> toKernelImage(const kernel_compiler::CompiledKernel& kernel,
                                             size_t buffer_params);

}  // namespace jft::compiler
