// A pool of compile workers: parallel compiles, crash recovery, timeouts.
//
// Workers start lazily (the first compile, or identity()) and each handles one
// request at a time. A worker that crashes, hangs past the timeout or garbles
// the stream is killed; the next request on that slot starts a fresh one
// (counted in restarts()). The failing request gets an error naming what
// happened, with its TTIR dumped to options.dump_dir. A compile error reported
// by a healthy worker (bad TTIR, compiler exception) leaves the worker running.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "kernel_compiler/compile_types.h"
#include "kernel_compiler/worker_process.h"
#include "support/status.h"

namespace jft::kernel_compiler {

struct WorkerPoolOptions {
  WorkerCommand command;
  int num_workers = 2;
  // Time for a fresh worker to import its compiler and say hello.
  std::chrono::milliseconds startup_timeout{120000};
  // Time for one compile, from sending the request to the end of the answer.
  std::chrono::milliseconds compile_timeout{600000};
  // Where failing TTIR is written; empty: nowhere.
  std::string dump_dir;
};

// The command that runs python/jax_flagtree/worker.py as a module:
// `python -m jax_flagtree.worker`, with python_path (the folder holding
// jax_flagtree/) prepended to PYTHONPATH when it is not empty.
WorkerCommand pythonWorkerCommand(const std::string& python_executable,
                                  const std::string& python_path);

class WorkerPool {
 public:
  explicit WorkerPool(WorkerPoolOptions options);
  ~WorkerPool();  // asks every worker to exit, kills those that do not
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // The compiler the workers run, from a worker's hello (starting one if
  // needed). FAILED_PRECONDITION when the worker could not import a compiler.
  StatusOr<CompilerIdentity> identity();

  // Thread-safe; blocks while every worker is busy.
  StatusOr<CompiledKernel> compile(const CompileRequest& request);
  // Compiles on up to num_workers workers at once; results in request order.
  std::vector<StatusOr<CompiledKernel>> compileAll(
      const std::vector<CompileRequest>& requests);

  int restarts() const;
  const WorkerPoolOptions& options() const { return options_; }

 private:
  struct Slot {
    std::unique_ptr<WorkerProcess> process;
    std::optional<CompilerIdentity> identity;
    std::string startup_error;  // hello's error: the worker has no compiler
    bool busy = false;
    bool ever_started = false;
  };

  size_t acquireSlot();
  void releaseSlot(size_t index);
  Status ensureStarted(Slot& slot);
  // Sets about_this_kernel when the failure came from compiling the request
  // (as opposed to starting a worker), which decides whether the TTIR is dumped.
  StatusOr<CompiledKernel> compileOn(Slot& slot, const CompileRequest& request,
                                     bool& about_this_kernel);

  WorkerPoolOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable slot_freed_;
  std::vector<Slot> slots_;
  std::optional<CompilerIdentity> known_identity_;
  uint64_t next_request_id_ = 1;
  int restarts_ = 0;
};

}  // namespace jft::kernel_compiler
