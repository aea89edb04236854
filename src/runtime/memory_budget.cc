// Memory limits and accounting.
#include "runtime/memory_budget.h"

#include <algorithm>
#include <cmath>

namespace jft::runtime {

uint64_t memoryLimit(const MemoryOptions& options, uint64_t totalBytes) {
  if (options.allocator == MemoryOptions::Allocator::kPlatform) return totalBytes;
  double fraction = std::clamp(options.fraction, 0.0, 1.0);
  return static_cast<uint64_t>(std::floor(fraction * static_cast<double>(totalBytes)));
}

void MemoryBudget::setLimit(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.bytes_limit = static_cast<int64_t>(bytes);
}

Status MemoryBudget::take(uint64_t bytes, const std::string& where) {
  std::lock_guard<std::mutex> lock(mutex_);
  const uint64_t room = static_cast<uint64_t>(
      std::max<int64_t>(0, stats_.bytes_limit - stats_.bytes_in_use));
  if (bytes > room) {
    return resourceExhausted(
        "out of memory allocating " + std::to_string(bytes) + " bytes on " + where +
        ": " + std::to_string(stats_.bytes_in_use) + " of its limit of " +
        std::to_string(stats_.bytes_limit) +
        " bytes are in use (the limit is XLA_PYTHON_CLIENT_MEM_FRACTION of the GPU's "
        "memory, 0.75 by default; free arrays, or raise the fraction)");
  }
  const auto wanted = static_cast<int64_t>(bytes);
  stats_.bytes_in_use += wanted;
  stats_.peak_bytes_in_use = std::max(stats_.peak_bytes_in_use, stats_.bytes_in_use);
  stats_.num_allocs += 1;
  stats_.largest_alloc = std::max(stats_.largest_alloc, wanted);
  return Status::ok();
}

void MemoryBudget::give(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.bytes_in_use -= static_cast<int64_t>(bytes);
}

MemoryStats MemoryBudget::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void MemoryBudget::resetPeak() {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.peak_bytes_in_use = stats_.bytes_in_use;
}

}  // namespace jft::runtime
