#include "kernel_compiler/compile_progress.h"

#include <cstdio>

namespace jft::kernel_compiler {

CompileProgress::CompileProgress(const CompileProgressOptions& options, size_t total)
    : options_(options), total_(total) {
  if (options_.after.count() > 0 && options_.write && total_ > 0)
    watcher_ = std::thread([this] { watch(); });
}

CompileProgress::~CompileProgress() {
  {
    std::lock_guard lock(mutex_);
    finished_ = true;
    if (shown_) options_.write(line(true));
  }
  changed_.notify_all();
  if (watcher_.joinable()) watcher_.join();
}

void CompileProgress::kernelDone() {
  std::lock_guard lock(mutex_);
  ++done_;
  // On a terminal the line follows the count; in a log it would be one line
  // per kernel, so the log gets only the first and the last.
  if (shown_ && options_.in_place && done_ < total_) options_.write(line(false));
}

void CompileProgress::watch() {
  std::unique_lock lock(mutex_);
  if (changed_.wait_for(lock, options_.after, [&] { return finished_; })) return;
  shown_ = true;
  options_.write(line(false));
}

double CompileProgress::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

std::string CompileProgress::line(bool final) const {
  char text[256];
  if (final) {
    std::snprintf(text, sizeof text, "compiled %zu/%zu kernels in %.1f s", done_, total_,
                  seconds());
  } else {
    std::snprintf(text, sizeof text,
                  "compiling kernels with Triton/FlagTree: %zu/%zu done, %.0f s so far "
                  "(each is compiled once, then cached)",
                  done_, total_, seconds());
  }
  std::string out = (options_.in_place ? "\r\033[K" : "") + std::string("jax-flagtree: ");
  out += text;
  if (final || !options_.in_place) out += "\n";
  return out;
}

}  // namespace jft::kernel_compiler
