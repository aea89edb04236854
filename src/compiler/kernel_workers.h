// The kernel compiler of a long-lived caller (a PJRT client), created once
// and kept for every later compile. Failing to create it is remembered: later
// calls return the first outcome.
//
// Its workers start when a compile needs them, with one exception:
// startAhead(), called when the client is created, starts one in the
// background when the compiler's identity is not remembered for the installed
// build (the first process after an install or upgrade, or without a
// fingerprint) -- that process needs a worker for every cache key anyway, and
// the compiler's import (a second or more) then overlaps JAX's tracing. Once
// the identity is remembered, a process whose kernels are all cached starts
// no worker at all.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "kernel_compiler/kernel_compiler.h"
#include "support/status.h"

namespace jft::compiler {

// How to start the kernel compiler: `python_executable -m worker_module`
// (python3 and jax_flagtree.worker when empty); failing TTIR is dumped under
// `dump_dir` when set (the --xla_dump_to folder).
struct KernelWorkerSettings {
  std::string python_executable;
  std::string worker_module;
  std::string dump_dir;
  int num_workers = 0;  // kernels compiled at once; 0: defaultCompileWorkers()
  bool log = false;     // a lost worker and its kernel's retry reported on stderr
  // The installed Triton/FlagTree build, from the Python registration
  // (jax_flagtree/compiler_fingerprint.py); empty: identity asked of a worker.
  std::string compiler_fingerprint;
  // A compile running longer says so on stderr (kernel_compiler/compile_progress.h);
  // 0: never. XLA_FLAGTREE_SLOW_COMPILE_SECONDS sets it (slowCompileSeconds).
  double slow_compile_seconds = 5;
};

// XLA_FLAGTREE_SLOW_COMPILE_SECONDS when set to a number >= 0, else `fallback`.
double slowCompileSeconds(double fallback);

// Half the machine's hardware threads, between 2 and 8: a program's kernels
// compile in parallel (a training step has dozens), while each worker, a
// Python process holding the Triton compiler, costs a few hundred MB.
int defaultCompileWorkers();

kernel_compiler::KernelCompilerOptions kernelCompilerOptions(
    const KernelWorkerSettings& settings);

class KernelWorkers {
 public:
  explicit KernelWorkers(KernelWorkerSettings settings)
      : settings_(std::move(settings)) {}
  // A worker still importing its compiler for startAhead() is killed, not waited for.
  ~KernelWorkers();
  KernelWorkers(const KernelWorkers&) = delete;
  KernelWorkers& operator=(const KernelWorkers&) = delete;

  // Creates the kernel compiler on the first call.
  StatusOr<kernel_compiler::KernelCompiler*> get();

  // Starts a worker in the background unless the compiler identity is
  // remembered; returns at once. True when it started one.
  bool startAhead();

 private:
  KernelWorkerSettings settings_;
  std::mutex mutex_;
  bool tried_ = false;
  Status error_;
  std::unique_ptr<kernel_compiler::KernelCompiler> kernel_compiler_;
  std::thread ahead_;
};

}  // namespace jft::compiler
