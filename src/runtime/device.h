// The device interface: everything above `runtime/gpu` talks to a GPU through
// these two classes, so a HIP backend is one more implementation of them.
//
// Addresses are opaque 64-bit device addresses. Every operation is ordered on
// the device's own queue and returns an Event that completes when the GPU has
// finished it; nothing here blocks the caller on the GPU except where noted.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "runtime/collective_context.h"
#include "runtime/event.h"
#include "runtime/gemm.h"
#include "runtime/program.h"
#include "support/status.h"

namespace jft::runtime {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;       // as the driver reports it, e.g. "NVIDIA H200"
  std::string vendor;     // "NVIDIA"
  int compute_major = 0;  // compute capability (CUDA) or gfx major (HIP)
  int compute_minor = 0;
  int core_count = 0;         // streaming multiprocessors / compute units
  uint64_t total_memory = 0;  // bytes
  std::string pci_bus_id;     // "0000:3b:00.0"
  int warp_size = 32;         // threads per warp (64 on most AMD GPUs)
};

// A kernel loaded on a device (a module + function); owned by the device.
using KernelHandle = const void*;

struct LaunchDims {
  std::array<uint32_t, 3> grid{1, 1, 1};
  uint32_t block_threads = 128;
  uint32_t shared_mem = 0;  // dynamic shared memory bytes
};

// A recorded run of launches (Device::createLaunchGraph); owned by the device.
using GraphHandle = void*;
struct GraphLaunch {
  KernelHandle kernel = nullptr;
  LaunchDims dims;
  void** params = nullptr;  // as launchKernel's
  // Instead of a kernel: library work this enqueues on the device (a gemm),
  // recorded as it enqueues it, with the arguments it has then.
  std::function<Status()> enqueue;
};

struct MemoryStats {
  int64_t bytes_in_use = 0;
  int64_t peak_bytes_in_use = 0;
  int64_t num_allocs = 0;
  int64_t largest_alloc = 0;
  int64_t bytes_limit = 0;
  // Memory a caching pool holds from the driver (used or not), now and at
  // most; -1 where the device has no pool.
  int64_t pool_bytes = -1;
  int64_t peak_pool_bytes = -1;
};

class Device {
 public:
  virtual ~Device() = default;
  virtual const DeviceInfo& info() const = 0;

  // Device memory of `bytes` (0 is allowed and yields address 0);
  // RESOURCE_EXHAUSTED when the device is full.
  virtual StatusOr<uint64_t> allocate(uint64_t bytes) = 0;
  // Returns the memory once all work queued so far has finished with it.
  virtual void deallocate(uint64_t address, uint64_t bytes) = 0;

  // The event completes when the data is on the device and `src` is free again.
  // With `waitForSource` the call itself returns only once `src` has been read,
  // waiting on the calling thread (never on the completion machinery).
  virtual StatusOr<EventPtr> copyToDevice(uint64_t dst, const void* src, uint64_t bytes,
                                          bool waitForSource = false) = 0;
  virtual StatusOr<EventPtr> copyToHost(void* dst, uint64_t src, uint64_t bytes) = 0;
  // copyToHost that returns once the bytes are there, waiting on the calling
  // thread: for the few bytes control flow reads between launches (a loop's
  // predicate, each iteration), where handing the wait to another thread
  // costs more than the copy.
  virtual Status readToHost(void* dst, uint64_t src, uint64_t bytes) {
    JFT_ASSIGN_OR_RETURN(EventPtr done, copyToHost(dst, src, bytes));
    return done->await();
  }
  // Copies from `src` on `srcDevice` (this device or another of the platform).
  virtual StatusOr<EventPtr> copyFromDevice(uint64_t dst, Device& srcDevice, uint64_t src,
                                            uint64_t bytes) = 0;

  // Page-locked host memory the device reaches by DMA (any device of the
  // platform may use it). 0 bytes yields null.
  virtual StatusOr<void*> allocatePinned(uint64_t bytes) = 0;
  // Returns it once all work queued so far has finished with it.
  virtual void deallocatePinned(void* pointer) = 0;
  // DMA between this device's memory and pinned host memory, queue-ordered.
  virtual StatusOr<EventPtr> copyDeviceToPinned(void* dst, uint64_t src,
                                                uint64_t bytes) = 0;
  virtual StatusOr<EventPtr> copyPinnedToDevice(uint64_t dst, const void* src,
                                                uint64_t bytes) = 0;

  virtual MemoryStats memoryStats() const = 0;
  virtual void resetPeakMemory() = 0;

  // Kernel execution (runtime/executable.h drives these). Defaults answer
  // UNIMPLEMENTED so devices that only move data need not implement them.
  //
  // Loads `image` once; the handle stays valid until unloadKernel. Enables
  // dynamic shared memory above the default per-block limit when asked for.
  virtual StatusOr<KernelHandle> loadKernel(const KernelImage& image);
  // Unloads once all work queued so far has finished with the kernel.
  virtual void unloadKernel(KernelHandle kernel);
  // Queue-ordered launch; `params[i]` points at the value of parameter i. The
  // values are read before the call returns. Errors name the kernel.
  virtual Status launchKernel(KernelHandle kernel, const LaunchDims& dims, void** params);
  // Launch graphs: a run of launches recorded once and replayed with one
  // enqueue (CUDA graphs), so the device starts each kernel without waiting
  // for the host's next launch. launchGraphsFrom() is the execution of a
  // program from which its runs are replayed (the first execution pays no
  // recording); 0 where the device has none (the default: the calls below
  // answer UNIMPLEMENTED).
  virtual int launchGraphsFrom() const { return 0; }
  // Whether a graph may hold library calls (GraphLaunch::enqueue) too.
  virtual bool graphsRecordLibraryCalls() const { return false; }
  // The launches in order, each after the one before; every `params` value is
  // read before the call returns. The handle stays valid until destroyGraph.
  virtual StatusOr<GraphHandle> createLaunchGraph(std::span<const GraphLaunch> launches);
  // Launch `index` of the graph takes new parameter values (its kernel and
  // dimensions stay those it was created with); a library call is recorded
  // again with the arguments it has now.
  virtual Status updateGraphLaunch(GraphHandle graph, size_t index,
                                   const GraphLaunch& launch);
  // Queue-ordered replay of every launch of the graph.
  virtual Status launchGraph(GraphHandle graph);
  // Destroys the graph once all work queued so far has finished with it.
  virtual void destroyGraph(GraphHandle graph);
  // Queue-ordered device-to-device copy and byte fill, without an event each
  // (a program's thunks share one completion event).
  virtual Status copyOnDevice(uint64_t dst, uint64_t src, uint64_t bytes);
  virtual Status fill(uint64_t dst, uint8_t value, uint64_t bytes);
  // Queue-ordered library matrix product (runtime/gemm.h) on device addresses;
  // `bias` is read only when desc.bias. Errors name the product.
  virtual Status gemm(const GemmDesc& desc, uint64_t a, uint64_t b, uint64_t d,
                      uint64_t bias);
  // Queue-ordered library operation (runtime/library_op.h) on device
  // addresses, in the order its description documents. Errors name it.
  virtual Status library(const LibraryOp& op, const std::vector<uint64_t>& buffers);
  // Readies `op` for library() without running it (loads the library, builds
  // and keeps its plan): OK when library() can run it, else why not
  // (UNAVAILABLE: no library; UNIMPLEMENTED: the library refuses it). The
  // compiler asks this before choosing a library route it may fall back from
  // (compiler::ConvLibrary); enqueues nothing.
  virtual Status prepareLibrary(const LibraryOp& op);
  // Runtime compilation of generated kernel source (the compiler's native
  // route: CUDA C through NVRTC on CUDA). sourceCompiler() names the compiler
  // and this device's target ("nvrtc 12.8 sm_90"), which tells binaries
  // apart in a cache; compileSource() builds `source` (one translation unit,
  // no includes, entry point `name`) into a binary loadKernel() takes. Both
  // may be called from several threads; neither enqueues anything.
  // UNAVAILABLE when the compiler cannot be loaded (saying where it was
  // looked for); UNIMPLEMENTED by default.
  virtual StatusOr<std::string> sourceCompiler();
  virtual StatusOr<std::string> compileSource(const std::string& source,
                                              const std::string& name);
  // Completes once everything queued so far has finished; carries the first
  // asynchronous error the device reports.
  // The platform's queue handle (CUstream on CUDA) for FFI handlers that
  // enqueue their own work on it; null where there is none (host stand-ins).
  virtual void* nativeStream() { return nullptr; }
  // Orders this device's queue after everything queued so far on `foreign`,
  // another queue handle of the platform (a DLPack producer's CUstream), without
  // blocking the caller. UNIMPLEMENTED by default (devices without queues).
  virtual Status waitForStream(void* foreign);
  virtual StatusOr<EventPtr> recordEvent();
  // Runs `then` once everything queued so far is done: at once, on the calling
  // thread, when the queue is idle (the default: devices without queues), else
  // later on the device's completion thread.
  virtual void afterQueuedWork(std::function<void()> then) { then(); }
  // This device's collective runner (runtime/collective_context.h), made on
  // first use and owned by the device; UNAVAILABLE when the platform has no
  // collective library (the default). CUDA always makes one: a missing NCCL
  // is the UNAVAILABLE of the first run that needs it.
  virtual StatusOr<CollectiveRunner*> collectiveRunner();
};

class Platform {
 public:
  virtual ~Platform() = default;
  virtual std::string name() const = 0;     // "cuda"
  virtual std::string version() const = 0;  // ends in an integer version, as upstream's
  virtual int deviceCount() const = 0;
  virtual Device& device(int ordinal) = 0;
  // How the devices' collective runners learn the ids of cliques whose rank 0
  // is in another process (collective_context.h); by default they only form
  // cliques within this process (CUDA: an InProcessCliqueIds; null restores
  // it). Set before the first collective runs.
  virtual void setCliqueIdExchange(std::shared_ptr<CliqueIdExchange> exchange);
};

}  // namespace jft::runtime
