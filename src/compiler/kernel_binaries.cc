// TTIR -> kernel images.
#include "compiler/kernel_binaries.h"

#include "compiler/kernel_image.h"

namespace jft::compiler {
namespace {

// The XLA_FLAGTREE_FAIL_KERNELS piece `name` contains, or null.
const std::string* injectedFailure(const std::string& name, const Options& options) {
  for (const std::string& piece : options.fail_kernels)
    if (!piece.empty() && name.find(piece) != std::string::npos) return &piece;
  return nullptr;
}

StatusOr<KernelBinary> imageOf(StatusOr<kernel_compiler::CompiledKernel> result,
                               const codegen::ttir::TtirKernel& kernel) {
  if (!result.isOk()) return result.status();
  StatusOr<runtime::KernelImage> image = toKernelImage(
      *result, kernel.inputs.size() + kernel.outputs.size() + kernel.scratch.size());
  if (!image.isOk()) return image.status();
  KernelBinary binary{std::move(image).value(), std::move(result).value()};
  binary.facts.binary.clear();
  return binary;
}

}  // namespace

std::vector<StatusOr<KernelBinary>> compileTtirKernels(
    const std::vector<const codegen::ttir::TtirKernel*>& kernels, const Options& options,
    kernel_compiler::KernelCompiler& compiler) {
  std::vector<StatusOr<KernelBinary>> out(
      kernels.size(), internalError("no result from the kernel compiler"));
  std::vector<kernel_compiler::CompileRequest> requests;
  std::vector<size_t> requested;  // index into `kernels` of each request
  for (size_t i = 0; i < kernels.size(); ++i) {
    const codegen::ttir::TtirKernel& kernel = *kernels[i];
    if (const std::string* piece = injectedFailure(kernel.name, options)) {
      out[i] = internalError(
          "compile failure injected by XLA_FLAGTREE_FAIL_KERNELS (the "
          "kernel's name contains '" +
          *piece + "')");
      continue;
    }
    kernel_compiler::CompileRequest request;
    request.ttir = kernel.ttir;
    request.target = options.target;
    request.options.num_warps = kernel.num_warps;
    request.options.num_stages = kernel.num_stages;
    requests.push_back(std::move(request));
    requested.push_back(i);
  }
  if (requests.empty()) return out;
  std::vector<StatusOr<kernel_compiler::CompiledKernel>> results =
      compiler.compileAll(requests);
  for (size_t r = 0; r < requested.size() && r < results.size(); ++r)
    out[requested[r]] = imageOf(std::move(results[r]), *kernels[requested[r]]);
  return out;
}

}  // namespace jft::compiler
