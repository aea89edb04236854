// TTIR -> kernel images.
#include "compiler/kernel_binaries.h"

#include "compiler/kernel_image.h"

namespace jft::compiler {

StatusOr<KernelBinaries> buildKernelBinaries(
    const std::vector<codegen::ttir::TtirKernel>& ttir, const Options& options,
    kernel_compiler::KernelCompiler& compiler) {
  KernelBinaries out;
  if (ttir.empty()) return out;
  std::vector<kernel_compiler::CompileRequest> requests;
  for (const codegen::ttir::TtirKernel& kernel : ttir) {
    kernel_compiler::CompileRequest request;
    request.ttir = kernel.ttir;
    request.target = options.target;
    request.options.num_warps = kernel.num_warps;
    request.options.num_stages = kernel.num_stages;
    requests.push_back(std::move(request));
  }
  std::vector<StatusOr<kernel_compiler::CompiledKernel>> results = compiler.compileAll(requests);
  std::string failures;
  StatusCode code = StatusCode::kOk;
  for (size_t i = 0; i < ttir.size(); ++i) {
    Status failure;
    if (i >= results.size()) {
      failure = internalError("no result from the kernel compiler");
    } else if (!results[i].isOk()) {
      failure = results[i].status();
    } else {
      StatusOr<runtime::KernelImage> image =
          toKernelImage(*results[i], ttir[i].inputs.size() + ttir[i].outputs.size() +
                                         ttir[i].scratch.size());
      if (image.isOk()) {
        out.images.push_back(std::move(image).value());
        kernel_compiler::CompiledKernel facts = std::move(results[i]).value();
        facts.binary.clear();
        if (!out.identity) out.identity = facts.compiler;
        out.compiled.push_back(std::move(facts));
        continue;
      }
      failure = image.status();
    }
    if (code == StatusCode::kOk) code = failure.code();
    failures += "\n  " + ttir[i].name + ": " + failure.toString();
  }
  if (failures.empty()) return out;
  std::string head = "kernel compilation failed";
  if (options.mode == Mode::kBackFail)
    head +=
        " (XLA_MODE=back_fail would run these kernels on the native route, which "
        "does not exist yet)";
  return Status(code, head + ":" + failures);
}

}  // namespace jft::compiler
