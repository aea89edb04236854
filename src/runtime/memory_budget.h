// How a device hands out memory, as JAX's XLA_PYTHON_CLIENT_* settings ask
// (MemoryOptions), and the byte accounting that enforces the limit they set
// (MemoryBudget). Backend-neutral: a device asks the budget before it asks its
// driver, and reports every free.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>

#include "runtime/device.h"
#include "support/status.h"

namespace jft::runtime {

struct MemoryOptions {
  enum class Allocator {
    kPool,      // "default", "bfc", "cuda_async": the device's caching pool
    kPlatform,  // "platform": the driver's allocate and free, nothing cached
  };
  // The runtime's own defaults (the whole GPU, nothing reserved ahead) suit
  // tools and tests; a JAX client starts from jaxDefaults().
  Allocator allocator = Allocator::kPool;
  double fraction = 1.0;     // of the device's total memory: the pool's limit
  bool preallocate = false;  // reserve the whole limit when the device opens

  // What JAX's CUDA client does unless told otherwise: a pool limited to 75 %
  // of the GPU, reserved when the client is created.
  static MemoryOptions jaxDefaults() {
    MemoryOptions options;
    options.fraction = 0.75;
    options.preallocate = true;
    return options;
  }
};

// The bytes a pool may hand out on a device of `totalBytes` (XLA's
// memory_fraction x total memory); the platform allocator is limited only by
// the device itself.
uint64_t memoryLimit(const MemoryOptions& options, uint64_t totalBytes);

// Thread-safe accounting of live allocations against a limit.
class MemoryBudget {
 public:
  MemoryBudget() = default;
  void setLimit(uint64_t bytes);

  // Counts `bytes` as in use, or RESOURCE_EXHAUSTED naming `where` (the device)
  // and the limit when they do not fit.
  Status take(uint64_t bytes, const std::string& where);
  // Returns what take() counted (a failed driver allocation after take()).
  void give(uint64_t bytes);

  MemoryStats stats() const;
  void resetPeak();

 private:
  mutable std::mutex mutex_;
  MemoryStats stats_;
};

}  // namespace jft::runtime
