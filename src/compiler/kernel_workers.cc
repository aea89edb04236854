// KernelWorkers: the kernel compiler, started once.
#include "compiler/kernel_workers.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
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
  out.compiler_fingerprint = settings.compiler_fingerprint;
  if (settings.slow_compile_seconds > 0) {
    out.progress.after = std::chrono::milliseconds(
        static_cast<int64_t>(settings.slow_compile_seconds * 1000));
    out.progress.in_place = ::isatty(STDERR_FILENO) == 1;
    out.progress.write = [](std::string_view text) {
      std::fwrite(text.data(), 1, text.size(), stderr);
      std::fflush(stderr);
    };
  }
  return out;
}

double slowCompileSeconds(double fallback) {
  const char* text = std::getenv("XLA_FLAGTREE_SLOW_COMPILE_SECONDS");
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  double value = std::strtod(text, &end);
  if (end == text || *end != '\0' || !(value >= 0)) {
    std::fprintf(
        stderr,
        "jax-flagtree: XLA_FLAGTREE_SLOW_COMPILE_SECONDS='%s' is not a number of "
        "seconds >= 0 (0 turns the slow-compile line off); using %g\n",
        text, fallback);
    return fallback;
  }
  return value;
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

bool KernelWorkers::startAhead() {
  StatusOr<kernel_compiler::KernelCompiler*> compiler = get();
  if (!compiler.isOk() || (*compiler)->rememberedIdentity()) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  if (ahead_.joinable()) return false;
  kernel_compiler::KernelCompiler* started = *compiler;
  // Its outcome is the pool's: a compile reuses the worker, or meets the same
  // error itself.
  ahead_ = std::thread([started] { (void)started->workerIdentity(); });
  return true;
}

KernelWorkers::~KernelWorkers() {
  if (!ahead_.joinable()) return;
  if (kernel_compiler_ != nullptr) kernel_compiler_->pool().abandonStartups();
  ahead_.join();
}

}  // namespace jft::compiler
