// PinnedStaging implementation.
#include "runtime/gpu/pinned_staging.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace jft::runtime::gpu {
namespace {

constexpr uint64_t kChunkBytes = 32ull << 20;
constexpr size_t kChunkCount = 4;
constexpr uint64_t kMinStagedBytes = 16ull << 20;
constexpr uint64_t kMinBytesPerThread = 4ull << 20;
constexpr unsigned kMaxCopyThreads = 8;

}  // namespace

void parallelMemcpy(void* dst, const void* src, uint64_t bytes) {
  if (bytes == 0) return;  // empty ranges may come with null pointers
  unsigned threads = std::min<unsigned>(
      kMaxCopyThreads,
      std::max<unsigned>(1, static_cast<unsigned>(bytes / kMinBytesPerThread)));
  threads = std::min(threads, std::max(1u, std::thread::hardware_concurrency()));
  if (threads <= 1) {
    std::memcpy(dst, src, bytes);
    return;
  }
  uint64_t part = (bytes + threads - 1) / threads;
  std::vector<std::thread> workers;
  for (unsigned i = 1; i < threads; ++i) {
    uint64_t begin = std::min<uint64_t>(bytes, part * i);
    uint64_t end = std::min<uint64_t>(bytes, begin + part);
    if (begin == end) break;
    workers.emplace_back([=] {
      std::memcpy(static_cast<char*>(dst) + begin, static_cast<const char*>(src) + begin,
                  end - begin);
    });
  }
  std::memcpy(dst, src, std::min(part, bytes));
  for (auto& worker : workers) worker.join();
}

bool PinnedStaging::worthStaging(uint64_t bytes) {
  static const bool enabled = [] {
    const char* value = std::getenv("JFT_PINNED_STAGING");
    return value == nullptr || std::string(value) != "0";
  }();
  return enabled && bytes >= kMinStagedBytes;
}

PinnedStaging::~PinnedStaging() {
  for (Chunk& chunk : chunks_) {
    if (chunk.done != nullptr) {
      driver_.eventSynchronize(chunk.done);
      driver_.eventDestroy(chunk.done);
    }
    if (chunk.host != nullptr) driver_.memFreeHost(chunk.host);
  }
}

Status PinnedStaging::ensureChunks() {
  if (!chunks_.empty()) return Status::ok();
  std::vector<Chunk> chunks(kChunkCount);
  Status status;
  for (Chunk& chunk : chunks) {
    status = driver_.check(driver_.memHostAlloc(&chunk.host, kChunkBytes, 0),
                           "cuMemHostAlloc");
    if (!status.isOk()) break;
    status = driver_.check(
        driver_.eventCreate(&chunk.done, kEventBlockingSync | kEventDisableTiming),
        "cuEventCreate");
    if (!status.isOk()) break;
  }
  if (!status.isOk()) {
    for (Chunk& chunk : chunks) {
      if (chunk.done != nullptr) driver_.eventDestroy(chunk.done);
      if (chunk.host != nullptr) driver_.memFreeHost(chunk.host);
    }
    return status;
  }
  chunks_ = std::move(chunks);
  return Status::ok();
}

Status PinnedStaging::waitChunk(Chunk& chunk) {
  if (!chunk.in_flight) return Status::ok();
  chunk.in_flight = false;
  return driver_.check(driver_.eventSynchronize(chunk.done), "cuEventSynchronize");
}

Status PinnedStaging::toDevice(CUstream stream, CUdeviceptr dst, const void* src,
                               uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  JFT_RETURN_IF_ERROR(ensureChunks());
  Status status;
  size_t next = 0;
  for (uint64_t offset = 0; offset < bytes && status.isOk(); offset += kChunkBytes) {
    Chunk& chunk = chunks_[next++ % chunks_.size()];
    uint64_t size = std::min(kChunkBytes, bytes - offset);
    status = waitChunk(chunk);  // its previous DMA must have read it
    if (!status.isOk()) break;
    parallelMemcpy(chunk.host, static_cast<const char*>(src) + offset, size);
    status =
        driver_.check(driver_.memcpyHtoDAsync(dst + offset, chunk.host, size, stream),
                      "cuMemcpyHtoDAsync");
    if (!status.isOk()) break;
    status = driver_.check(driver_.eventRecord(chunk.done, stream), "cuEventRecord");
    chunk.in_flight = status.isOk();
  }
  // The ring is reused by the next transfer: leave no DMA reading it behind.
  for (Chunk& chunk : chunks_) {
    Status waited = waitChunk(chunk);
    if (status.isOk()) status = waited;
  }
  return status;
}

Status PinnedStaging::toHost(CUstream stream, void* dst, CUdeviceptr src,
                             uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  JFT_RETURN_IF_ERROR(ensureChunks());
  const uint64_t count = (bytes + kChunkBytes - 1) / kChunkBytes;
  auto chunkSize = [&](uint64_t i) {
    return std::min(kChunkBytes, bytes - i * kChunkBytes);
  };
  auto issue = [&](uint64_t i) -> Status {
    Chunk& chunk = chunks_[i % chunks_.size()];
    JFT_RETURN_IF_ERROR(driver_.check(
        driver_.memcpyDtoHAsync(chunk.host, src + i * kChunkBytes, chunkSize(i), stream),
        "cuMemcpyDtoHAsync"));
    JFT_RETURN_IF_ERROR(
        driver_.check(driver_.eventRecord(chunk.done, stream), "cuEventRecord"));
    chunk.in_flight = true;
    return Status::ok();
  };
  Status status;
  uint64_t issued = 0;
  for (; issued < std::min<uint64_t>(count, chunks_.size()) && status.isOk(); ++issued)
    status = issue(issued);
  for (uint64_t i = 0; i < count && status.isOk(); ++i) {
    Chunk& chunk = chunks_[i % chunks_.size()];
    status = waitChunk(chunk);
    if (!status.isOk()) break;
    parallelMemcpy(static_cast<char*>(dst) + i * kChunkBytes, chunk.host, chunkSize(i));
    if (issued < count) status = issue(issued++);
  }
  for (Chunk& chunk : chunks_) {
    Status waited = waitChunk(chunk);
    if (status.isOk()) status = waited;
  }
  return status;
}

}  // namespace jft::runtime::gpu
