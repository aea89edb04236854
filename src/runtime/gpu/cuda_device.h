// CudaDevice: runtime::Device on one GPU through the CUDA driver.
//
// Owns the device's primary context retain, one non-blocking stream on which
// every copy and launch is ordered, the completion thread, and pinned staging
// buffers for large host transfers. Device memory comes from the device's
// stream-ordered pool on that stream (cuMemAllocFromPoolAsync/cuMemFreeAsync,
// freed memory kept cached), or from cuMemAlloc where pools are unsupported or
// JFT_MEMORY_POOL=0; then freeing is deferred behind an event recorded on the
// stream. Either way memory is never reused while queued work may touch it.
// MemoryOptions (JAX's XLA_PYTHON_CLIENT_* settings) set the pool's limit
// (MemoryBudget: RESOURCE_EXHAUSTED beyond it), whether the limit is reserved
// in the pool when the device opens, and the platform allocator (cuMemAlloc,
// nothing cached).
#pragma once

#include <atomic>
#include <memory>
#include <mutex>

#include "runtime/device.h"
#include "runtime/gpu/completion_thread.h"
#include "runtime/gpu/driver.h"
#include "runtime/gpu/pinned_staging.h"
#include "runtime/memory_budget.h"

namespace jft::runtime::gpu {

class GemmRunner;
class FftRunner;
class SolverRunner;
class ConvRunner;
class NcclCliques;
class NcclDeviceRunner;

class CudaDevice final : public Device {
 public:
  static StatusOr<std::unique_ptr<CudaDevice>> open(const Driver& driver, int ordinal,
                                                    const MemoryOptions& memory = {});
  ~CudaDevice() override;

  const DeviceInfo& info() const override { return info_; }
  StatusOr<uint64_t> allocate(uint64_t bytes) override;
  void deallocate(uint64_t address, uint64_t bytes) override;
  StatusOr<EventPtr> copyToDevice(uint64_t dst, const void* src, uint64_t bytes,
                                  bool waitForSource) override;
  StatusOr<EventPtr> copyToHost(void* dst, uint64_t src, uint64_t bytes) override;
  Status readToHost(void* dst, uint64_t src, uint64_t bytes) override;
  StatusOr<EventPtr> copyFromDevice(uint64_t dst, Device& srcDevice, uint64_t src,
                                    uint64_t bytes) override;
  StatusOr<void*> allocatePinned(uint64_t bytes) override;
  void deallocatePinned(void* pointer) override;
  StatusOr<EventPtr> copyDeviceToPinned(void* dst, uint64_t src, uint64_t bytes) override;
  StatusOr<EventPtr> copyPinnedToDevice(uint64_t dst, const void* src,
                                        uint64_t bytes) override;
  MemoryStats memoryStats() const override;
  void resetPeakMemory() override;

  StatusOr<KernelHandle> loadKernel(const KernelImage& image) override;
  void unloadKernel(KernelHandle kernel) override;
  Status launchKernel(KernelHandle kernel, const LaunchDims& dims,
                      void** params) override;
  Status copyOnDevice(uint64_t dst, uint64_t src, uint64_t bytes) override;
  // CUDA graphs of kernel nodes (cuda_graphs.cc), replayed from a program's
  // second execution on; JFT_CUDA_GRAPHS=N from its N-th, 0 never.
  int launchGraphsFrom() const override { return graphs_from_; }
  // JFT_CUDA_GRAPHS_LIBRARY=1: cuBLASLt products join the graphs, recorded by
  // stream capture on a stream of their own (a child graph each).
  bool graphsRecordLibraryCalls() const override { return graphs_library_; }
  StatusOr<GraphHandle> createLaunchGraph(std::span<const GraphLaunch> launches) override;
  Status updateGraphLaunch(GraphHandle graph, size_t index,
                           const GraphLaunch& launch) override;
  Status launchGraph(GraphHandle graph) override;
  void destroyGraph(GraphHandle graph) override;
  Status fill(uint64_t dst, uint8_t value, uint64_t bytes) override;
  // Through one cuBLASLt runner, created on the first product (its handle and
  // workspace cost memory a program without products should not pay).
  Status gemm(const GemmDesc& desc, uint64_t a, uint64_t b, uint64_t d,
              uint64_t bias) override;
  // FFTs, solvers and convolutions through runners created on first use
  // (cuda_library.cc).
  Status library(const LibraryOp& op, const std::vector<uint64_t>& buffers) override;
  // Convolutions: loads cuDNN and builds the description's plan (kept for
  // library()); the other descriptions need nothing ahead.
  Status prepareLibrary(const LibraryOp& op) override;
  // NVRTC (runtime/gpu/nvrtc.h) for this device's compute capability
  // (cuda_source.cc): a cubin for exactly sm_<major><minor>.
  StatusOr<std::string> sourceCompiler() override;
  StatusOr<std::string> compileSource(const std::string& source,
                                      const std::string& name) override;
  StatusOr<EventPtr> recordEvent() override { return fence(); }
  void afterQueuedWork(std::function<void()> then) override {
    releaseAfterQueuedWork(std::move(then));
  }
  // Collectives through NCCL (cuda_collectives.cc, runtime/gpu/nccl_cliques.h):
  // the runner is made on first call and never fails; NCCL loads on the first
  // collective that moves data, whose run is UNAVAILABLE without it.
  StatusOr<CollectiveRunner*> collectiveRunner() override;
  // The communicator cache this device's runner uses, shared by every device
  // of its platform. A device opened alone makes its own. FAILED_PRECONDITION
  // once collectiveRunner() has made the runner. Teardown destroys every
  // communicator of the cache (NCCL destroys a process's ranks together), so
  // devices sharing one go together.
  Status shareCliques(std::shared_ptr<NcclCliques> cliques);

  // Whether allocations come from the stream-ordered pool.
  bool usesMemoryPool() const { return pool_ != nullptr; }

  CUcontext context() const { return context_; }
  // Makes the device's context current on the calling thread, as every call
  // into the driver or a library for this device needs first.
  Status makeCurrent() const;
  // The stream every operation of this device is ordered on (library calls
  // such as cuBLASLt enqueue on it too).
  // While this thread records a library call into a graph, the capture
  // stream (cuda_graphs.cc).
  CUstream stream() const;
  void* nativeStream() override { return stream_; }
  Status waitForStream(void* foreign) override;

 private:
  CudaDevice(const Driver& driver, CUdevice device, DeviceInfo info);
  // Records an event after everything queued so far; `done` completes when the
  // GPU passes it, then `follow_up` runs on the completion thread.
  StatusOr<EventPtr> fence(std::function<void()> follow_up = {});
  Status setUpMemoryPool();
  // Fills the pool's cache with `bytes` (preallocation); best effort.
  void reserveInPool(uint64_t bytes);
  CUresult allocateRaw(CUdeviceptr* address, uint64_t bytes);
  void noteFreed(uint64_t bytes);
  // Runs `release` now if the queue is idle, else once queued work is done.
  void releaseAfterQueuedWork(std::function<void()> release);

  const Driver& driver_;
  CUdevice device_;
  DeviceInfo info_;
  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
  CUmemoryPool pool_ = nullptr;   // null: cuMemAlloc
  int max_shared_per_block_ = 0;  // opt-in limit for dynamic shared memory
  int graphs_from_ = 0;           // launchGraphsFrom()
  bool graphs_library_ = false;   // graphsRecordLibraryCalls()
  // Records `item`'s library work by stream capture into a new graph the
  // caller owns (cuda_graphs.cc); one capture at a time per device.
  StatusOr<CUgraph> captureLibraryCall(const GraphLaunch& item);
  std::mutex capture_mutex_;
  CUstream capture_stream_ = nullptr;  // made on the first capture
  std::unique_ptr<CompletionThread> completions_;
  std::unique_ptr<PinnedStaging> staging_;
  // Small reads (a while loop's predicate, a branch index: one per iteration)
  // land in page-locked memory: a pageable destination costs the driver a
  // bounce through its own staging on every read. Made on first use.
  static constexpr uint64_t kReadbackBytes = 64;
  std::mutex readback_mutex_;
  void* readback_ = nullptr;

  MemoryBudget budget_;

  std::mutex gemm_mutex_;  // guards creating gemm_
  std::unique_ptr<GemmRunner> gemm_;
  struct LibraryRunners {
    LibraryRunners();
    ~LibraryRunners();
    void release();    // destroys the runners (before the stream goes)
    std::mutex mutex;  // guards creating the runners
    std::unique_ptr<FftRunner> fft;
    std::unique_ptr<SolverRunner> solver;
    std::unique_ptr<ConvRunner> conv;
  } libraries_;
  struct Collectives {
    Collectives();
    ~Collectives();
    void release();    // destroys the communicators (before the stream goes)
    std::mutex mutex;  // guards the members
    std::shared_ptr<NcclCliques> cliques;
    std::unique_ptr<NcclDeviceRunner> runner;
  } collectives_;
};

}  // namespace jft::runtime::gpu
