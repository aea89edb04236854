// CudaDevice: runtime::Device on one GPU through the CUDA driver.
//
// Owns the device's primary context retain, one non-blocking stream on which
// every copy is ordered, the completion thread, and pinned staging buffers for
// large host transfers. Memory comes from
// cuMemAlloc; freeing is deferred behind an event recorded on the stream, so
// memory is never returned while queued work may still touch it.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>

#include "runtime/device.h"
#include "runtime/gpu/completion_thread.h"
#include "runtime/gpu/driver.h"
#include "runtime/gpu/pinned_staging.h"

namespace jft::runtime::gpu {

class CudaDevice final : public Device {
 public:
  static StatusOr<std::unique_ptr<CudaDevice>> open(const Driver& driver, int ordinal);
  ~CudaDevice() override;

  const DeviceInfo& info() const override { return info_; }
  StatusOr<uint64_t> allocate(uint64_t bytes) override;
  void deallocate(uint64_t address, uint64_t bytes) override;
  StatusOr<EventPtr> copyToDevice(uint64_t dst, const void* src, uint64_t bytes,
                                  bool waitForSource) override;
  StatusOr<EventPtr> copyToHost(void* dst, uint64_t src, uint64_t bytes) override;
  StatusOr<EventPtr> copyFromDevice(uint64_t dst, Device& srcDevice, uint64_t src,
                                    uint64_t bytes) override;
  StatusOr<void*> allocatePinned(uint64_t bytes) override;
  void deallocatePinned(void* pointer) override;
  StatusOr<EventPtr> copyDeviceToPinned(void* dst, uint64_t src, uint64_t bytes) override;
  StatusOr<EventPtr> copyPinnedToDevice(uint64_t dst, const void* src,
                                        uint64_t bytes) override;
  MemoryStats memoryStats() const override;
  void resetPeakMemory() override;

  CUcontext context() const { return context_; }
  // The stream every operation of this device is ordered on (library calls
  // such as cuBLASLt enqueue on it too).
  CUstream stream() const { return stream_; }

 private:
  CudaDevice(const Driver& driver, CUdevice device, DeviceInfo info);
  Status makeCurrent() const;
  // Records an event after everything queued so far; `done` completes when the
  // GPU passes it, then `followUp` runs on the completion thread.
  StatusOr<EventPtr> fence(std::function<void()> followUp = {});
  void noteFreed(uint64_t bytes);
  // Runs `release` now if the queue is idle, else once queued work is done.
  void releaseAfterQueuedWork(std::function<void()> release);

  const Driver& driver_;
  CUdevice device_;
  DeviceInfo info_;
  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
  std::unique_ptr<CompletionThread> completions_;
  std::unique_ptr<PinnedStaging> staging_;

  mutable std::mutex statsMutex_;
  MemoryStats stats_;
};

}  // namespace jft::runtime::gpu
