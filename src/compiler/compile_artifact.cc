// compileArtifact: read once, localize the global view, compile.
#include "compiler/compile_artifact.h"

#include "compiler/compile_tree.h"
#include "frontend/bytecode/reader.h"
#include "frontend/sdy/global_view.h"
#include "frontend/vhlo/import.h"

namespace jft::compiler {

StatusOr<Executable> compileArtifact(std::string_view artifact, const Options& options,
                                     KernelWorkers* workers) {
  StatusOr<frontend::MTree> tree = frontend::readBytecode(
      reinterpret_cast<const uint8_t*>(artifact.data()), artifact.size());
  // Unreadable bytes go on to compileTree, which reports the reader's error.
  bool localized = false;
  if (tree.isOk() && options.num_partitions > 1) {
    JFT_ASSIGN_OR_RETURN(
        localized, frontend::sdy::localizeGlobalView(*tree, options.num_partitions));
  }
  kernel_compiler::KernelCompiler* kernel_compiler = nullptr;
  if (workers != nullptr) {
    JFT_ASSIGN_OR_RETURN(kernel_compiler, workers->get());
  }
  if (!localized) return compileTree(artifact, tree, options, kernel_compiler);
  // The per-device program is no longer the bytes: it is fingerprinted and
  // dumped as the printed module (compileModule).
  StatusOr<ir::Module> module = frontend::importTree(*tree);
  if (!module.isOk())
    return module.status().withContext(
        "reading the per-device body of a fully manual program (sdy.manual_computation)");
  return compileModule(std::move(module).value(), options, kernel_compiler);
}

}  // namespace jft::compiler
