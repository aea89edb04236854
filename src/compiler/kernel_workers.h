// The kernel compiler of a long-lived caller (a PJRT client): its worker
// processes are started on the first compile that needs them, not before
// (starting them is only worth it once a program is compiled), and kept for
// every later compile. Failing to start is remembered: later calls return the
// first outcome.
#pragma once

#include <memory>
#include <mutex>
#include <string>

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
};

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

  // Starts the kernel compiler on the first call.
  StatusOr<kernel_compiler::KernelCompiler*> get();

 private:
  KernelWorkerSettings settings_;
  std::mutex mutex_;
  bool tried_ = false;
  Status error_;
  std::unique_ptr<kernel_compiler::KernelCompiler> kernel_compiler_;
};

}  // namespace jft::compiler
