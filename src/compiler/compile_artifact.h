// The compile entry for a caller outside the compiler (src/pjrt): the bytes of
// a StableHLO portable artifact and the options (the caller's settings, the
// participants from its compile options, the device's target, measurer and
// convolution library) in, the executable out. The bytes are read once:
//
//   bytes -> generic tree (frontend/bytecode)
//         -> with num_partitions > 1, JAX's global view (frontend/sdy):
//            as it is when all replicated, its manual computation's body when
//            fully manual, else refused (UNIMPLEMENTED, "global view")
//         -> ir (frontend/vhlo) -> the pipeline of compiler.h
//
// The kernel compiler is started (KernelWorkers::get) only once the program
// is known to be compiled; `workers` null compiles offline (compiler.h: stop
// after TTIR, not to be run).
#pragma once

#include <string_view>

#include "compiler/compiler.h"
#include "compiler/entry_value.h"
#include "compiler/kernel_workers.h"

namespace jft::compiler {

// What Options::target holds: the device compiled for (backend, arch, warp size).
using KernelTarget = kernel_compiler::KernelTarget;

StatusOr<Executable> compileArtifact(std::string_view artifact, const Options& options,
                                     KernelWorkers* workers);

}  // namespace jft::compiler
