// PinnedStaging: large host<->device copies through page-locked bounce buffers.
//
// Copies from pageable memory go through the driver's own staging, which is
// slow on some machines (virtualised hosts in particular). Here the host side is
// copied by several threads into a ring of pinned chunks while the DMA engine
// moves the previous chunks, so both run at once. Both directions return only
// when the host memory is no longer needed (source read / destination written).
// Chunks are allocated on first use; one transfer at a time owns the ring.
#pragma once

#include <mutex>
#include <vector>

#include "runtime/gpu/driver.h"

namespace jft::runtime::gpu {

class PinnedStaging {
 public:
  explicit PinnedStaging(const Driver& driver) : driver_(driver) {}
  ~PinnedStaging();
  PinnedStaging(const PinnedStaging&) = delete;
  PinnedStaging& operator=(const PinnedStaging&) = delete;

  // Whether a transfer of `bytes` is worth staging (JFT_PINNED_STAGING=0 disables).
  static bool worthStaging(uint64_t bytes);

  Status toDevice(CUstream stream, CUdeviceptr dst, const void* src, uint64_t bytes);
  Status toHost(CUstream stream, void* dst, CUdeviceptr src, uint64_t bytes);

 private:
  struct Chunk {
    void* host = nullptr;
    CUevent done = nullptr;  // recorded after the chunk's DMA
    bool in_flight = false;
  };
  Status ensureChunks();
  Status waitChunk(Chunk& chunk);

  const Driver& driver_;
  std::mutex mutex_;
  std::vector<Chunk> chunks_;
};

// memcpy split across threads; small copies stay on the calling thread.
void parallelMemcpy(void* dst, const void* src, uint64_t bytes);

}  // namespace jft::runtime::gpu
