// CudaDevice implementation.
#include "runtime/gpu/cuda_device.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "runtime/gpu/cublaslt.h"
#include "runtime/gpu/cufft.h"
#include "runtime/gpu/cusolver.h"

namespace jft::runtime::gpu {
namespace {

// From which execution a program replays its runs of launches as graphs
// (Device::launchGraphsFrom): the second by default, so a program run once
// pays no recording; JFT_CUDA_GRAPHS=N sets it, 0 turns graphs off.
int graphsFrom(const Driver& driver) {
  if (!driver.has_graphs) return 0;
  const char* setting = std::getenv("JFT_CUDA_GRAPHS");
  if (setting == nullptr || *setting == '\0') return 2;
  char* end = nullptr;
  long value = std::strtol(setting, &end, 10);
  if (*end != '\0' || value < 0 || value > 1000000) return 2;
  return static_cast<int>(value);
}

StatusOr<DeviceInfo> describe(const Driver& driver, CUdevice device, int ordinal) {
  DeviceInfo info;
  info.ordinal = ordinal;
  info.vendor = "NVIDIA";
  char name[256] = {};
  JFT_RETURN_IF_ERROR(driver.check(driver.deviceGetName(name, sizeof(name) - 1, device),
                                   "cuDeviceGetName"));
  info.name = name;
  auto attribute = [&](int which, int* out) {
    return driver.check(driver.deviceGetAttribute(out, which, device),
                        "cuDeviceGetAttribute");
  };
  JFT_RETURN_IF_ERROR(attribute(kAttrComputeCapabilityMajor, &info.compute_major));
  JFT_RETURN_IF_ERROR(attribute(kAttrComputeCapabilityMinor, &info.compute_minor));
  JFT_RETURN_IF_ERROR(attribute(kAttrMultiprocessorCount, &info.core_count));
  JFT_RETURN_IF_ERROR(attribute(kAttrWarpSize, &info.warp_size));
  int domain = 0, bus = 0, slot = 0;
  JFT_RETURN_IF_ERROR(attribute(kAttrPciDomainId, &domain));
  JFT_RETURN_IF_ERROR(attribute(kAttrPciBusId, &bus));
  JFT_RETURN_IF_ERROR(attribute(kAttrPciDeviceId, &slot));
  char pci[32];
  std::snprintf(pci, sizeof(pci), "%04x:%02x:%02x.0", domain, bus, slot);
  info.pci_bus_id = pci;
  size_t total = 0;
  JFT_RETURN_IF_ERROR(
      driver.check(driver.deviceTotalMem(&total, device), "cuDeviceTotalMem"));
  info.total_memory = total;
  return info;
}

}  // namespace

StatusOr<std::unique_ptr<CudaDevice>> CudaDevice::open(const Driver& driver, int ordinal,
                                                       const MemoryOptions& memory) {
  CUdevice handle = 0;
  JFT_RETURN_IF_ERROR(driver.check(driver.deviceGet(&handle, ordinal), "cuDeviceGet"));
  JFT_ASSIGN_OR_RETURN(DeviceInfo info, describe(driver, handle, ordinal));
  std::unique_ptr<CudaDevice> device(new CudaDevice(driver, handle, std::move(info)));
  JFT_RETURN_IF_ERROR(driver.check(driver.primaryCtxRetain(&device->context_, handle),
                                   "cuDevicePrimaryCtxRetain"));
  JFT_RETURN_IF_ERROR(device->makeCurrent());
  JFT_RETURN_IF_ERROR(driver.check(
      driver.streamCreate(&device->stream_, kStreamNonBlocking), "cuStreamCreate"));
  size_t freeBytes = 0, totalBytes = 0;
  JFT_RETURN_IF_ERROR(
      driver.check(driver.memGetInfo(&freeBytes, &totalBytes), "cuMemGetInfo"));
  const uint64_t limit = memoryLimit(memory, totalBytes);
  device->budget_.setLimit(limit);
  JFT_RETURN_IF_ERROR(
      driver.check(driver.deviceGetAttribute(&device->max_shared_per_block_,
                                             kAttrMaxSharedMemoryPerBlockOptin, handle),
                   "cuDeviceGetAttribute"));
  if (memory.allocator == MemoryOptions::Allocator::kPool) {
    JFT_RETURN_IF_ERROR(device->setUpMemoryPool());
    if (memory.preallocate) device->reserveInPool(limit);
  }
  device->graphs_from_ = graphsFrom(driver);
  if (const char* library = std::getenv("JFT_CUDA_GRAPHS_LIBRARY"))
    device->graphs_library_ = device->graphs_from_ > 0 && std::strcmp(library, "1") == 0;
  device->completions_ = std::make_unique<CompletionThread>(driver, device->context_);
  device->staging_ = std::make_unique<PinnedStaging>(driver);
  return device;
}

CudaDevice::CudaDevice(const Driver& driver, CUdevice device, DeviceInfo info)
    : driver_(driver), device_(device), info_(std::move(info)) {}

CudaDevice::~CudaDevice() {
  if (context_ == nullptr) return;
  driver_.ctxSetCurrent(context_);
  if (stream_ != nullptr) driver_.streamSynchronize(stream_);
  collectives_.release();  // NCCL's ranks use the stream and context
  gemm_.reset();           // frees its workspace through this device's stream
  libraries_.release();    // likewise, while the stream and context live
  completions_.reset();    // drains pending frees, joins the thread
  staging_.reset();
  if (readback_ != nullptr) driver_.memFreeHost(readback_);
  // The default pool outlives us (the primary context may stay retained by
  // others): hand its cached memory back.
  if (pool_ != nullptr) driver_.memPoolTrimTo(pool_, 0);
  if (stream_ != nullptr) driver_.streamDestroy(stream_);
  if (capture_stream_ != nullptr) driver_.streamDestroy(capture_stream_);
  driver_.primaryCtxRelease(device_);
}

Status CudaDevice::makeCurrent() const {
  return driver_.check(driver_.ctxSetCurrent(context_), "cuCtxSetCurrent");
}

StatusOr<EventPtr> CudaDevice::fence(std::function<void()> follow_up) {
  CUevent cuda_event = nullptr;
  JFT_RETURN_IF_ERROR(driver_.check(
      driver_.eventCreate(&cuda_event, kEventBlockingSync | kEventDisableTiming),
      "cuEventCreate"));
  Status recorded =
      driver_.check(driver_.eventRecord(cuda_event, stream_), "cuEventRecord");
  if (!recorded.isOk()) {
    driver_.eventDestroy(cuda_event);
    return recorded;
  }
  EventPtr done = Event::create();
  completions_->watch(cuda_event, done, std::move(follow_up));
  return done;
}

// cuMemAlloc costs tens of microseconds and cuMemFree synchronizes the
// device; the pool answers from cached memory in well under a microsecond, so
// per-execution output allocation stays cheap. Keeping everything cached
// (release threshold = max) is what makes reuse cheap; trimming on
// out-of-memory gives the cache back before we report failure.
Status CudaDevice::setUpMemoryPool() {
  const char* setting = std::getenv("JFT_MEMORY_POOL");
  if (setting != nullptr && std::strcmp(setting, "0") == 0) return Status::ok();
  int supported = 0;
  JFT_RETURN_IF_ERROR(driver_.check(
      driver_.deviceGetAttribute(&supported, kAttrMemoryPoolsSupported, device_),
      "cuDeviceGetAttribute"));
  if (supported == 0) return Status::ok();
  CUmemoryPool pool = nullptr;
  JFT_RETURN_IF_ERROR(driver_.check(driver_.deviceGetDefaultMemPool(&pool, device_),
                                    "cuDeviceGetDefaultMemPool"));
  uint64_t keepAll = std::numeric_limits<uint64_t>::max();
  JFT_RETURN_IF_ERROR(driver_.check(
      driver_.memPoolSetAttribute(pool, kMemPoolAttrReleaseThreshold, &keepAll),
      "cuMemPoolSetAttribute"));
  pool_ = pool;
  return Status::ok();
}

void CudaDevice::reserveInPool(uint64_t bytes) {
  if (pool_ == nullptr || bytes == 0) return;
  // Another process may hold part of the GPU: take what is free, leaving the
  // driver some room (upstream's allocator also leaves slack).
  size_t freeBytes = 0, totalBytes = 0;
  if (driver_.memGetInfo(&freeBytes, &totalBytes) != kCudaSuccess) return;
  constexpr uint64_t kSlack = uint64_t{256} << 20;
  if (freeBytes <= kSlack) return;
  bytes = std::min<uint64_t>(bytes, freeBytes - kSlack);
  CUdeviceptr block = 0;
  if (driver_.memAllocFromPoolAsync(&block, bytes, pool_, stream_) != kCudaSuccess)
    return;
  // The release threshold keeps the freed block in the pool, which then
  // answers later allocations from it.
  driver_.memFreeAsync(block, stream_);
  driver_.streamSynchronize(stream_);
}

CUresult CudaDevice::allocateRaw(CUdeviceptr* address, uint64_t bytes) {
  if (pool_ == nullptr) return driver_.memAlloc(address, bytes);
  CUresult result = driver_.memAllocFromPoolAsync(address, bytes, pool_, stream_);
  if (result != kCudaErrorOutOfMemory) return result;
  // Cached blocks of other sizes may be what is missing: return them and retry.
  driver_.streamSynchronize(stream_);
  driver_.memPoolTrimTo(pool_, 0);
  return driver_.memAllocFromPoolAsync(address, bytes, pool_, stream_);
}

Status CudaDevice::waitForStream(void* foreign) {
  if (foreign == nullptr || foreign == stream_) return Status::ok();
  JFT_RETURN_IF_ERROR(makeCurrent());
  CUevent marker = nullptr;
  JFT_RETURN_IF_ERROR(
      driver_.check(driver_.eventCreate(&marker, kEventDisableTiming), "cuEventCreate"));
  Status status = driver_.check(
      driver_.eventRecord(marker, static_cast<CUstream>(foreign)), "cuEventRecord");
  if (status.isOk())
    status =
        driver_.check(driver_.streamWaitEvent(stream_, marker, 0), "cuStreamWaitEvent");
  // The wait keeps what it needs of the event: destroying it now is allowed.
  driver_.eventDestroy(marker);
  return status;
}

StatusOr<uint64_t> CudaDevice::allocate(uint64_t bytes) {
  if (bytes == 0) return uint64_t{0};
  JFT_RETURN_IF_ERROR(budget_.take(bytes, info_.name));
  Status status = makeCurrent();
  CUdeviceptr address = 0;
  if (status.isOk())
    status = driver_.check(allocateRaw(&address, bytes),
                           pool_ != nullptr ? "cuMemAllocFromPoolAsync" : "cuMemAlloc");
  if (!status.isOk()) {
    budget_.give(bytes);
    return Status(status.code(), "allocating " + std::to_string(bytes) + " bytes on " +
                                     info_.name + ": " + status.message());
  }
  return static_cast<uint64_t>(address);
}

void CudaDevice::noteFreed(uint64_t bytes) {
  budget_.give(bytes);
}

void CudaDevice::releaseAfterQueuedWork(std::function<void()> release) {
  // An idle stream has no pending use: release now so the stats are exact at once.
  if (driver_.streamQuery(stream_) == kCudaSuccess) {
    release();
    return;
  }
  auto fenced = fence(release);
  if (!fenced.isOk()) {
    driver_.streamSynchronize(stream_);
    release();
  }
}

void CudaDevice::deallocate(uint64_t address, uint64_t bytes) {
  if (address == 0) return;
  if (!makeCurrent().isOk()) return;
  // Stream order already puts the free after every queued use.
  if (pool_ != nullptr &&
      driver_.memFreeAsync(static_cast<CUdeviceptr>(address), stream_) == kCudaSuccess) {
    noteFreed(bytes);
    return;
  }
  releaseAfterQueuedWork([this, address, bytes] {
    driver_.memFree(static_cast<CUdeviceptr>(address));
    noteFreed(bytes);
  });
}

StatusOr<void*> CudaDevice::allocatePinned(uint64_t bytes) {
  if (bytes == 0) return static_cast<void*>(nullptr);
  JFT_RETURN_IF_ERROR(makeCurrent());
  void* pointer = nullptr;
  Status status = driver_.check(driver_.memHostAlloc(&pointer, bytes, kHostAllocPortable),
                                "cuMemHostAlloc");
  if (!status.isOk()) {
    return Status(status.code(), "allocating " + std::to_string(bytes) +
                                     " bytes of pinned host memory: " + status.message());
  }
  return pointer;
}

void CudaDevice::deallocatePinned(void* pointer) {
  if (pointer == nullptr) return;
  if (!makeCurrent().isOk()) return;
  releaseAfterQueuedWork([this, pointer] { driver_.memFreeHost(pointer); });
}

StatusOr<EventPtr> CudaDevice::copyDeviceToPinned(void* dst, uint64_t src,
                                                  uint64_t bytes) {
  if (bytes == 0) return Event::ready();
  JFT_RETURN_IF_ERROR(makeCurrent());
  JFT_RETURN_IF_ERROR(driver_.check(
      driver_.memcpyDtoHAsync(dst, static_cast<CUdeviceptr>(src), bytes, stream_),
      "cuMemcpyDtoHAsync"));
  return fence();
}

StatusOr<EventPtr> CudaDevice::copyPinnedToDevice(uint64_t dst, const void* src,
                                                  uint64_t bytes) {
  if (bytes == 0) return Event::ready();
  JFT_RETURN_IF_ERROR(makeCurrent());
  JFT_RETURN_IF_ERROR(driver_.check(
      driver_.memcpyHtoDAsync(static_cast<CUdeviceptr>(dst), src, bytes, stream_),
      "cuMemcpyHtoDAsync"));
  return fence();
}

StatusOr<EventPtr> CudaDevice::copyToDevice(uint64_t dst, const void* src, uint64_t bytes,
                                            bool waitForSource) {
  if (bytes == 0) return Event::ready();
  JFT_RETURN_IF_ERROR(makeCurrent());
  if (PinnedStaging::worthStaging(bytes)) {
    // Returns once `src` has been read, which covers `waitForSource` too.
    JFT_RETURN_IF_ERROR(
        staging_->toDevice(stream_, static_cast<CUdeviceptr>(dst), src, bytes));
    return fence();
  }
  JFT_RETURN_IF_ERROR(driver_.check(
      driver_.memcpyHtoDAsync(static_cast<CUdeviceptr>(dst), src, bytes, stream_),
      "cuMemcpyHtoDAsync"));
  if (waitForSource) {
    JFT_RETURN_IF_ERROR(
        driver_.check(driver_.streamSynchronize(stream_), "cuStreamSynchronize"));
  }
  return fence();
}

StatusOr<EventPtr> CudaDevice::copyToHost(void* dst, uint64_t src, uint64_t bytes) {
  if (bytes == 0) return Event::ready();
  JFT_RETURN_IF_ERROR(makeCurrent());
  if (PinnedStaging::worthStaging(bytes)) {
    // Synchronous: the destination is written when this returns.
    JFT_RETURN_IF_ERROR(
        staging_->toHost(stream_, dst, static_cast<CUdeviceptr>(src), bytes));
    return Event::ready();
  }
  JFT_RETURN_IF_ERROR(driver_.check(
      driver_.memcpyDtoHAsync(dst, static_cast<CUdeviceptr>(src), bytes, stream_),
      "cuMemcpyDtoHAsync"));
  return fence();
}

// The copy and a stream synchronize on this thread: no event, no completion
// thread, no blocking-sync wake-up, so a loop's predicate costs about what
// the copy does (as XLA's while loop reads it).
Status CudaDevice::readToHost(void* dst, uint64_t src, uint64_t bytes) {
  if (bytes == 0) return Status::ok();
  JFT_RETURN_IF_ERROR(makeCurrent());
  std::unique_lock<std::mutex> lock(readback_mutex_, std::defer_lock);
  void* landing = dst;
  if (bytes <= kReadbackBytes) {
    lock.lock();
    if (readback_ == nullptr)
      JFT_RETURN_IF_ERROR(driver_.check(
          driver_.memHostAlloc(&readback_, kReadbackBytes, kHostAllocPortable),
          "cuMemHostAlloc"));
    landing = readback_;
  }
  JFT_RETURN_IF_ERROR(driver_.check(
      driver_.memcpyDtoHAsync(landing, static_cast<CUdeviceptr>(src), bytes, stream_),
      "cuMemcpyDtoHAsync"));
  JFT_RETURN_IF_ERROR(
      driver_.check(driver_.streamSynchronize(stream_), "cuStreamSynchronize"));
  if (landing != dst) std::memcpy(dst, landing, bytes);
  return Status::ok();
}

StatusOr<EventPtr> CudaDevice::copyFromDevice(uint64_t dst, Device& srcDevice,
                                              uint64_t src, uint64_t bytes) {
  if (bytes == 0) return Event::ready();
  auto* source = dynamic_cast<CudaDevice*>(&srcDevice);
  if (source == nullptr) return invalidArgument("source device is not a CUDA device");
  JFT_RETURN_IF_ERROR(makeCurrent());
  if (source == this) {
    JFT_RETURN_IF_ERROR(driver_.check(
        driver_.memcpyDtoDAsync(static_cast<CUdeviceptr>(dst),
                                static_cast<CUdeviceptr>(src), bytes, stream_),
        "cuMemcpyDtoDAsync"));
    return fence();
  }
  // The source's queue must have produced the data before our queue reads it.
  JFT_RETURN_IF_ERROR(
      driver_.check(driver_.streamSynchronize(source->stream_), "cuStreamSynchronize"));
  JFT_RETURN_IF_ERROR(
      driver_.check(driver_.memcpyPeerAsync(static_cast<CUdeviceptr>(dst), context_,
                                            static_cast<CUdeviceptr>(src),
                                            source->context_, bytes, stream_),
                    "cuMemcpyPeerAsync"));
  return fence();
}

MemoryStats CudaDevice::memoryStats() const {
  MemoryStats stats = budget_.stats();
  if (pool_ != nullptr) {
    uint64_t current = 0, high = 0;
    if (driver_.memPoolGetAttribute(pool_, kMemPoolAttrReservedMemCurrent, &current) ==
            kCudaSuccess &&
        driver_.memPoolGetAttribute(pool_, kMemPoolAttrReservedMemHigh, &high) ==
            kCudaSuccess) {
      stats.pool_bytes = static_cast<int64_t>(current);
      stats.peak_pool_bytes = static_cast<int64_t>(high);
    }
  }
  return stats;
}

void CudaDevice::resetPeakMemory() {
  budget_.resetPeak();
}

}  // namespace jft::runtime::gpu
