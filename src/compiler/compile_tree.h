// compile() after its bytecode reader: the pipeline on the generic tree read
// from `bytecode`, or the reader's error when `tree` holds one. The
// fingerprint and the dump folder are those of the bytes, as for compile();
// compile_artifact.cc reads once and comes here when nothing was localized.
#pragma once

#include <string_view>

#include "compiler/compiler.h"
#include "frontend/mlir_tree.h"

namespace jft::compiler {

StatusOr<Executable> compileTree(std::string_view bytecode,
                                 const StatusOr<frontend::MTree>& tree,
                                 const Options& options,
                                 kernel_compiler::KernelCompiler* kernel_compiler,
                                 Stages* stages = nullptr);

}  // namespace jft::compiler
