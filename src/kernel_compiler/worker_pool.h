// A pool of compile workers: parallel compiles, crash recovery, timeouts.
//
// Workers start lazily (the first compile, or identity()) and each handles one
// request at a time. A worker that crashes, hangs past the timeout or garbles
// the stream is killed; the next request on that slot starts a fresh one
// (counted in restarts()). A worker lost while compiling (killed by a signal,
// the OOM killer, an exit, a hang past the time limit) is usually not the
// kernel's fault, so its kernel is compiled again on a fresh worker, up to
// max_worker_loss_retries times, each loss reported through options.log. A
// kernel that loses workers every time, or garbles the stream, fails with an
// error naming the kernel and what happened, its TTIR dumped to
// options.dump_dir. A compile error reported by a healthy worker (bad TTIR,
// compiler exception) leaves the worker running and is not retried.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
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
  // How often a kernel whose worker died or hung is compiled again on a fresh one.
  int max_worker_loss_retries = 2;
  // Receives one line per lost worker (no trailing newline); empty: silent.
  // Called from compiling threads, possibly several at once.
  std::function<void(const std::string&)> log;
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
  // needed; a hello already awaited by another thread is waited for, not
  // asked again). FAILED_PRECONDITION when the worker could not import a compiler.
  StatusOr<CompilerIdentity> identity();
  // What a worker's hello said, without starting or waiting for one.
  std::optional<CompilerIdentity> knownIdentity() const;
  // The fingerprint of the compiler build the workers imported, from the
  // same hello; empty before it or when the worker did not say.
  std::string compilerFingerprint() const;
  // Kills the workers still importing their compiler and starts no more, so
  // that an owner going away need not wait for a start it no longer needs.
  void abandonStartups();

  // Thread-safe; blocks while every worker is busy.
  StatusOr<CompiledKernel> compile(const CompileRequest& request);
  // Compiles on up to num_workers workers at once; results in request order.
  // on_each, when set, is called after each kernel (from compiling threads).
  std::vector<StatusOr<CompiledKernel>> compileAll(
      const std::vector<CompileRequest>& requests,
      const std::function<void()>& on_each = {});

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
  // Sets worker_lost when the worker died or hung while it held the request.
  StatusOr<CompiledKernel> compileOn(Slot& slot, const CompileRequest& request,
                                     bool& about_this_kernel, bool& worker_lost);
  void log(const std::string& line) const;

  WorkerPoolOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable slot_freed_;
  std::condition_variable identity_settled_;
  std::vector<Slot> slots_;
  std::optional<CompilerIdentity> known_identity_;
  std::string known_fingerprint_;
  bool identity_pending_ = false;  // a thread awaits a hello for identity()
  bool abandoned_ = false;
  std::vector<pid_t> starting_;  // spawned, hello not yet read
  uint64_t next_request_id_ = 1;
  int restarts_ = 0;
};

}  // namespace jft::kernel_compiler
