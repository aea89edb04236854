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
  stats_.bytesLimit = static_cast<int64_t>(bytes);
}

Status MemoryBudget::take(uint64_t bytes, const std::string& where) {
  std::lock_guard<std::mutex> lock(mutex_);
  const uint64_t room =
      static_cast<uint64_t>(std::max<int64_t>(0, stats_.bytesLimit - stats_.bytesInUse));
  if (bytes > room) {
    return resourceExhausted(
        "out of memory allocating " + std::to_string(bytes) + " bytes on " + where +
        ": " + std::to_string(stats_.bytesInUse) + " of its limit of " +
        std::to_string(stats_.bytesLimit) +
        " bytes are in use (the limit is XLA_PYTHON_CLIENT_MEM_FRACTION of the GPU's "
        "memory, 0.75 by default; free arrays, or raise the fraction)");
  }
  const auto wanted = static_cast<int64_t>(bytes);
  stats_.bytesInUse += wanted;
  stats_.peakBytesInUse = std::max(stats_.peakBytesInUse, stats_.bytesInUse);
  stats_.numAllocs += 1;
  stats_.largestAlloc = std::max(stats_.largestAlloc, wanted);
  return Status::ok();
}

void MemoryBudget::give(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.bytesInUse -= static_cast<int64_t>(bytes);
}

MemoryStats MemoryBudget::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void MemoryBudget::resetPeak() {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.peakBytesInUse = stats_.bytesInUse;
}

}  // namespace jft::runtime
