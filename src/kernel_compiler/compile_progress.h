// Says so when compiling a program's kernels takes long: the user otherwise
// sees a process that hangs without a word (JAX users know XLA's "Very slow
// compile?" line for the same reason).
//
// Nothing is written for a compile that ends before `after`. Past it, on a
// terminal, one line is written and rewritten in place ("\r") as kernels
// finish, ended with a newline when the last one is done; elsewhere (a log
// file, CI) a line when the time passes and one when it ends, so logs stay
// one line per event.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace jft::kernel_compiler {

struct CompileProgressOptions {
  std::chrono::milliseconds after{0};  // 0 (or less): never say anything
  bool in_place = false;               // the sink is a terminal
  // Receives text exactly as it should appear ("\r" and "\n" included).
  std::function<void(std::string_view)> write;
};

// One compile of `total` kernels; destroying it ends the report.
class CompileProgress {
 public:
  CompileProgress(const CompileProgressOptions& options, size_t total);
  ~CompileProgress();
  CompileProgress(const CompileProgress&) = delete;
  CompileProgress& operator=(const CompileProgress&) = delete;

  // One more kernel done; thread-safe.
  void kernelDone();

 private:
  void watch();
  std::string line(bool final) const;  // callers hold mutex_
  double seconds() const;

  const CompileProgressOptions options_;
  const size_t total_;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::mutex mutex_;
  std::condition_variable changed_;
  size_t done_ = 0;
  bool finished_ = false;
  bool shown_ = false;
  std::thread watcher_;
};

}  // namespace jft::kernel_compiler
