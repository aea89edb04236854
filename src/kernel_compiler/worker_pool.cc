#include "kernel_compiler/worker_pool.h"

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
  auto frame = process->receiveFrame(after(options_.startup_timeout));
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
  }
  return Status::ok();
}

StatusOr<CompilerIdentity> WorkerPool::identity() {
  {
    // Every worker runs the same interpreter: one hello answers for all, and
    // asking again must not wait for a busy pool.
    std::lock_guard lock(mutex_);
    if (known_identity_) return *known_identity_;
  }
  size_t index = acquireSlot();
  Slot& slot = slots_[index];
  Status started = ensureStarted(slot);
  std::optional<CompilerIdentity> identity = slot.identity;
  std::string startup_error = slot.startup_error;
  releaseSlot(index);
  if (!started.isOk()) return started;
  if (!startup_error.empty()) {
    return failedPrecondition("the compile worker has no compiler: " + startup_error);
  }
  return *identity;
}

StatusOr<CompiledKernel> WorkerPool::compileOn(Slot& slot, const CompileRequest& request,
                                               bool& about_this_kernel) {
  uint64_t id;
  {
    std::lock_guard lock(mutex_);
    id = next_request_id_++;
  }
  // A worker found dead before it saw the request (it died while idle) gets
  // one replacement; a worker that dies while compiling does not, since the
  // request itself is the likely cause.
  for (int attempt = 0;; ++attempt) {
    about_this_kernel = false;
    JFT_RETURN_IF_ERROR(ensureStarted(slot));
    if (!slot.startup_error.empty()) {
      return failedPrecondition("the compile worker has no compiler: " +
                                slot.startup_error);
    }
    about_this_kernel = true;
    Status sent = slot.process->sendFrame(compileRequestHeader(id, request), request.ttir,
                                          after(options_.compile_timeout));
    if (!sent.isOk() && sent.code() == StatusCode::kUnavailable && attempt == 0) {
      slot.process.reset();
      continue;
    }
    if (!sent.isOk()) {
      slot.process.reset();
      return sent;
    }
    auto frame = slot.process->receiveFrame(after(options_.compile_timeout));
    if (!frame.isOk()) {
      slot.process.reset();  // kills it: crashed, hung or garbled
      Status error = frame.status();
      if (error.code() == StatusCode::kDeadlineExceeded) {
        error = Status(StatusCode::kDeadlineExceeded,
                       "kernel compile exceeded " +
                           std::to_string(options_.compile_timeout.count()) +
                           " ms; the worker was killed");
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

StatusOr<CompiledKernel> WorkerPool::compile(const CompileRequest& request) {
  size_t index = acquireSlot();
  bool about_this_kernel = false;
  StatusOr<CompiledKernel> result = compileOn(slots_[index], request, about_this_kernel);
  releaseSlot(index);
  if (result.isOk()) return result;
  Status error =
      result.status().withContext("compiling a kernel for " + describeRequest(request));
  // A worker that cannot start or has no compiler fails every kernel alike:
  // dumping each one would only bury the one message that matters.
  if (!about_this_kernel) return error;
  return withFailureDump(options_.dump_dir, request, std::move(error));
}

std::vector<StatusOr<CompiledKernel>> WorkerPool::compileAll(
    const std::vector<CompileRequest>& requests) {
  std::vector<std::optional<StatusOr<CompiledKernel>>> results(requests.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < requests.size(); i = next++)
      results[i] = compile(requests[i]);
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
