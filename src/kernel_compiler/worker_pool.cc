#include "kernel_compiler/worker_pool.h"

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>

#include "kernel_compiler/failure_dump.h"

namespace jft::kernel_compiler {
namespace {

constexpr std::chrono::milliseconds kShutdownGrace{2000};

Deadline after(std::chrono::milliseconds timeout) {
  return std::chrono::steady_clock::now() + timeout;
}

std::string describeRequest(const CompileRequest& request) {
  return request.target.backend + " " + request.target.arch;
}

}  // namespace

WorkerCommand pythonWorkerCommand(const std::string& python_executable,
                                  const std::string& python_path) {
  WorkerCommand command;
  command.argv = {python_executable, "-m", "jax_flagtree.worker"};
  if (!python_path.empty()) {
    const char* inherited = std::getenv("PYTHONPATH");
    std::string value = python_path;
    if (inherited != nullptr && *inherited != '\0') value += std::string(":") + inherited;
    command.extra_env.push_back("PYTHONPATH=" + value);
  }
  return command;
}

WorkerPool::WorkerPool(WorkerPoolOptions options) : options_(std::move(options)) {
  slots_.resize(static_cast<size_t>(std::max(1, options_.num_workers)));
}

WorkerPool::~WorkerPool() {
  std::unique_lock lock(mutex_);
  slot_freed_.wait(lock, [&] {
    for (const Slot& slot : slots_) {
      if (slot.busy) return false;
    }
    return true;
  });
  Deadline deadline = after(kShutdownGrace);
  for (Slot& slot : slots_) {
    if (slot.process) slot.process->requestShutdown(deadline);
  }
  for (Slot& slot : slots_) {
    if (slot.process) slot.process->finishShutdown(deadline);
  }
}

int WorkerPool::restarts() const {
  std::lock_guard lock(mutex_);
  return restarts_;
}

size_t WorkerPool::acquireSlot() {
  std::unique_lock lock(mutex_);
  while (true) {
    // Prefer a running worker: starting one costs a compiler import.
    size_t chosen = slots_.size();
    for (size_t i = 0; i < slots_.size(); ++i) {
      if (slots_[i].busy) continue;
      if (slots_[i].process) {
        chosen = i;
        break;
      }
      if (chosen == slots_.size()) chosen = i;
    }
    if (chosen < slots_.size()) {
      slots_[chosen].busy = true;
      return chosen;
    }
    slot_freed_.wait(lock);
  }
}

void WorkerPool::releaseSlot(size_t index) {
  {
    std::lock_guard lock(mutex_);
    slots_[index].busy = false;
  }
  slot_freed_.notify_all();
}

Status WorkerPool::ensureStarted(Slot& slot) {
  if (slot.process && slot.process->alive()) return Status::ok();
  slot.process.reset();
  slot.identity.reset();
  if (slot.ever_started) {
    std::lock_guard lock(mutex_);
    ++restarts_;
  }
  slot.ever_started = true;
  JFT_ASSIGN_OR_RETURN(auto process, WorkerProcess::spawn(options_.command));
  {
    std::lock_guard lock(mutex_);
    if (abandoned_) return unavailable("the kernel compiler is shutting down");
    starting_.push_back(process->pid());
  }
  auto frame = process->receiveFrame(after(options_.startup_timeout));
  {
    std::lock_guard lock(mutex_);
    std::erase(starting_, process->pid());
  }
  if (!frame.isOk()) {
    return Status(
        frame.status().code(),
        "compile worker did not start: " + frame.status().message() +
            (process->stderrTail().empty() ? "" : "; stderr: " + process->stderrTail()));
  }
  auto hello = parseHello(*frame);
  if (!hello.isOk()) return hello.status().withContext("compile worker hello");
  slot.identity = hello->compiler;
  slot.startup_error = hello->error;
  slot.process = std::move(process);
  if (slot.startup_error.empty()) {
    std::lock_guard lock(mutex_);
    known_identity_ = hello->compiler;
    known_fingerprint_ = hello->compiler_fingerprint;
  }
  return Status::ok();
}

std::optional<CompilerIdentity> WorkerPool::knownIdentity() const {
  std::lock_guard lock(mutex_);
  return known_identity_;
}

std::string WorkerPool::compilerFingerprint() const {
  std::lock_guard lock(mutex_);
  return known_fingerprint_;
}

void WorkerPool::abandonStartups() {
  std::lock_guard lock(mutex_);
  abandoned_ = true;
  // Still in starting_, so not reaped yet: the pid cannot have been reused.
  for (pid_t pid : starting_) ::kill(-pid, SIGKILL);
}

StatusOr<CompilerIdentity> WorkerPool::identity() {
  {
    // Every worker runs the same interpreter: one hello answers for all, and
    // asking again must not wait for a busy pool, nor start a second worker
    // while the first (started ahead, in the background) is importing.
    std::unique_lock lock(mutex_);
    identity_settled_.wait(lock, [&] { return known_identity_ || !identity_pending_; });
    if (known_identity_) return *known_identity_;
    identity_pending_ = true;
  }
  size_t index = acquireSlot();
  Slot& slot = slots_[index];
  Status started = ensureStarted(slot);
  std::optional<CompilerIdentity> identity = slot.identity;
  std::string startup_error = slot.startup_error;
  releaseSlot(index);
  {
    std::lock_guard lock(mutex_);
    identity_pending_ = false;
  }
  identity_settled_.notify_all();
  if (!started.isOk()) return started;
  if (!startup_error.empty()) {
    return failedPrecondition("the compile worker has no compiler: " + startup_error);
  }
  return *identity;
}

void WorkerPool::log(const std::string& line) const {
  if (options_.log) options_.log(line);
}

StatusOr<CompiledKernel> WorkerPool::compileOn(Slot& slot, const CompileRequest& request,
                                               bool& about_this_kernel,
                                               bool& worker_lost) {
  uint64_t id;
  {
    std::lock_guard lock(mutex_);
    id = next_request_id_++;
  }
  worker_lost = false;
  // A worker found dead before it took the request (it died while idle) is
  // replaced once without counting against the kernel.
  for (int attempt = 0;; ++attempt) {
    about_this_kernel = false;
    JFT_RETURN_IF_ERROR(ensureStarted(slot));
    if (!slot.startup_error.empty()) {
      return failedPrecondition("the compile worker has no compiler: " +
                                slot.startup_error);
    }
    about_this_kernel = true;
    pid_t pid = slot.process->pid();
    Status sent = slot.process->sendFrame(compileRequestHeader(id, request), request.ttir,
                                          after(options_.compile_timeout));
    if (!sent.isOk() && sent.code() == StatusCode::kUnavailable && attempt == 0) {
      slot.process.reset();
      continue;
    }
    if (!sent.isOk()) {
      slot.process.reset();
      worker_lost = true;
      return sent;
    }
    auto frame = slot.process->receiveFrame(after(options_.compile_timeout));
    if (!frame.isOk()) {
      slot.process.reset();  // kills it: crashed, hung or garbled
      Status error = frame.status();
      worker_lost = error.code() == StatusCode::kUnavailable ||
                    error.code() == StatusCode::kDeadlineExceeded;
      if (error.code() == StatusCode::kDeadlineExceeded) {
        error = Status(StatusCode::kDeadlineExceeded,
                       "compile worker (pid " + std::to_string(pid) +
                           ") exceeded the kernel compile time limit of " +
                           std::to_string(options_.compile_timeout.count()) +
                           " ms and was killed");
      }
      return error;
    }
    auto kernel = parseResult(*frame, id);
    if (!kernel.isOk() && kernel.status().code() != StatusCode::kInternal) {
      slot.process.reset();  // a malformed answer: the stream cannot be trusted
      return Status(StatusCode::kDataLoss, "malformed answer from the compile worker: " +
                                               kernel.status().message());
    }
    return kernel;
  }
}

namespace {

// "kernel 'name'", or the target when the TTIR names no function.
std::string kernelLabel(const CompileRequest& request) {
  std::string name = kernelNameOf(request.ttir);
  return name.empty() ? "an unnamed kernel" : "kernel '" + name + "'";
}

std::string firstLine(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

}  // namespace

StatusOr<CompiledKernel> WorkerPool::compile(const CompileRequest& request) {
  size_t index = acquireSlot();
  bool about_this_kernel = false;
  bool worker_lost = false;
  int retries = std::max(0, options_.max_worker_loss_retries);
  StatusOr<CompiledKernel> result = internalError("not compiled");
  int losses = 0;
  while (true) {
    result = compileOn(slots_[index], request, about_this_kernel, worker_lost);
    if (result.isOk() || !worker_lost) break;
    ++losses;
    if (losses > retries) break;
    log("compile worker lost while compiling " + kernelLabel(request) + ": " +
        firstLine(result.status().message()) + "; compiling it again on a fresh worker" +
        " (retry " + std::to_string(losses) + " of " + std::to_string(retries) + ")");
  }
  releaseSlot(index);
  if (result.isOk()) return result;
  Status error = result.status();
  if (worker_lost) {
    std::string times = losses == 1 ? "once" : std::to_string(losses) + " times";
    log("compile worker lost while compiling " + kernelLabel(request) + ": " +
        firstLine(error.message()) + "; giving up after " + times);
    error = Status(error.code(),
                   kernelLabel(request) + " lost its compile worker " + times +
                       " (a kernel that kills or hangs every worker it is given; "
                       "the last time: " +
                       error.message() + ")");
  }
  error = error.withContext("compiling a kernel for " + describeRequest(request));
  // A worker that cannot start or has no compiler fails every kernel alike:
  // dumping each one would only bury the one message that matters.
  if (!about_this_kernel) return error;
  return withFailureDump(options_.dump_dir, request, std::move(error));
}

std::vector<StatusOr<CompiledKernel>> WorkerPool::compileAll(
    const std::vector<CompileRequest>& requests, const std::function<void()>& on_each) {
  std::vector<std::optional<StatusOr<CompiledKernel>>> results(requests.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < requests.size(); i = next++) {
      results[i] = compile(requests[i]);
      if (on_each) on_each();
    }
  };
  size_t thread_count = std::min(slots_.size(), requests.size());
  std::vector<std::thread> threads;
  for (size_t t = 1; t < thread_count; ++t) threads.emplace_back(work);
  work();
  for (std::thread& thread : threads) thread.join();
  std::vector<StatusOr<CompiledKernel>> ordered;
  ordered.reserve(requests.size());
  for (auto& result : results) ordered.push_back(std::move(*result));
  return ordered;
}

}  // namespace jft::kernel_compiler
