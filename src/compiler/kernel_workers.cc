// KernelWorkers: the kernel compiler, started once.
#include "compiler/kernel_workers.h"

#include <algorithm>
#include <cstdio>
#include <thread>

namespace jft::compiler {

kernel_compiler::KernelCompilerOptions kernelCompilerOptions(
    const KernelWorkerSettings& settings) {
  kernel_compiler::KernelCompilerOptions out;
  out.pool.command.argv = {
      settings.python_executable.empty() ? "python3" : settings.python_executable, "-m",
      settings.worker_module.empty() ? "jax_flagtree.worker" : settings.worker_module};
  out.dump_dir = settings.dump_dir;
  if (settings.log) {
    out.pool.log = [](const std::string& line) {
      std::fprintf(stderr, "jax-flagtree: %s\n", line.c_str());
    };
  }
  out.pool.num_workers =
      settings.num_workers > 0 ? settings.num_workers : defaultCompileWorkers();
  return out;
}

int defaultCompileWorkers() {
  const int threads = static_cast<int>(std::thread::hardware_concurrency());
  return std::clamp(threads / 2, 2, 8);
}

StatusOr<kernel_compiler::KernelCompiler*> KernelWorkers::get() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!tried_) {
    tried_ = true;
    auto created =
        kernel_compiler::KernelCompiler::create(kernelCompilerOptions(settings_));
    if (created.isOk()) {
      kernel_compiler_ = std::move(created).value();
    } else {
      error_ = created.status().withContext("cannot start the kernel compiler");
    }
  }
  if (kernel_compiler_ == nullptr) return error_;
  return kernel_compiler_.get();
}

}  // namespace jft::compiler
