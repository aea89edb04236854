// PJRT_Buffer: an array in one device's memory.
//
// The data lives in device memory or, for a "pinned_host" memory, in
// page-locked host memory. `ready` completes when the data is in place (or carries the
// transfer's error). Delete returns the memory through the device, which defers the free
// until queued work that may read it has finished; Destroy also frees the handle.
// While external references (DLPack exports) are held, Delete and Destroy defer
// the free until the count returns to zero. A view (CreateViewOfDeviceBuffer)
// owns no memory: instead of a free, its owner's callback runs once.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "pjrt/abi.h"
#include "pjrt/abi_buffers.h"
#include "runtime/event.h"
#include "support/status.h"

namespace jft::pjrt {
// Joins an alias buffer and its fulfilment callback; cut when the alias is
// deleted first, so a late fulfilment is refused instead of touching it.
struct AliasLink {
  std::mutex mutex;
  PJRT_Buffer* alias = nullptr;
};
}  // namespace jft::pjrt

struct PJRT_Buffer {
  PJRT_Client* client = nullptr;
  PJRT_Device* device = nullptr;
  PJRT_Memory* memory = nullptr;
  PJRT_Buffer_Type type = PJRT_Buffer_Type_INVALID;
  std::vector<int64_t> dims;
  // The order of its elements in memory, minor-to-major dims; empty where
  // dense row-major (Buffer_GetMemoryLayout spells that out on first ask).
  std::vector<int64_t> minor_to_major;
  uint64_t byte_size = 0;
  uint64_t address = 0;  // device memory, when not on pinned host memory
  void* host = nullptr;  // pinned host memory
  bool pinned_host = false;
  jft::runtime::EventPtr ready;

  // Set for a view of memory someone else owns; runs (once) instead of a free.
  std::function<void()> on_view_deleted;
  bool view = false;
  // Its data is still to come (a transfer manager's buffer before its last
  // transfer, an alias before it is fulfilled): reads wait for `ready`,
  // Execute and copies refuse it. Set and cleared under `mutex`.
  bool incomplete = false;
  std::shared_ptr<jft::pjrt::AliasLink> alias_link;  // an alias not yet fulfilled

  std::mutex mutex;
  bool deleted = false;
  int external_references = 0;
  bool free_deferred = false;  // deleted while external references were held
  bool destroy_deferred = false;

  // Marks the buffer deleted and frees its memory once (after the last external
  // reference goes); later calls do nothing.
  void release();
  bool isDeleted();
  // Its element order, empty where row-major (however minor_to_major spells it).
  std::vector<int64_t> layoutOrder();
  // Gives up one external reference; frees (and deletes the handle when Destroy
  // came first) if it was the last. FAILED_PRECONDITION when none is held.
  static jft::Status dropExternalReference(PJRT_Buffer* buffer);
  // Destroy: releases, and deletes the handle unless external references hold it.
  static void destroy(PJRT_Buffer* buffer);

 private:
  void freeMemory();
};

namespace jft::pjrt {

// Transfers (transfer.cc).
struct BufferTarget {
  PJRT_Device* device;
  PJRT_Memory* memory;
};
// The memory a new buffer goes to: `memory` when set, else `device`'s default;
// INVALID_ARGUMENT (naming `function`) for another client's or a missing one.
StatusOr<BufferTarget> resolveTarget(PJRT_Client& client, PJRT_Device* device,
                                     PJRT_Memory* memory, const char* function);
// A new buffer on `target` of `type` and `dims`, `byte_size` bytes, with
// neither memory nor `ready` yet.
std::unique_ptr<PJRT_Buffer> describeBuffer(PJRT_Client& client, BufferTarget target,
                                            PJRT_Buffer_Type type,
                                            std::vector<int64_t> dims,
                                            uint64_t byte_size);
// A new buffer on `target` with memory allocated for `byte_size` bytes; its
// `ready` is left for the caller to set.
StatusOr<std::unique_ptr<PJRT_Buffer>> allocateBuffer(PJRT_Client& client,
                                                      BufferTarget target,
                                                      PJRT_Buffer_Type type,
                                                      std::vector<int64_t> dims,
                                                      uint64_t byte_size);
// A buffer without memory whose ready event carries `error` (buffer_create.cc).
std::unique_ptr<PJRT_Buffer> makeErrorBuffer(PJRT_Client& client, BufferTarget target,
                                             PJRT_Buffer_Type type,
                                             std::vector<int64_t> dims,
                                             uint64_t byte_size, Status error);
// Copies [offset, offset + bytes) of `buffer` to `dst` once its data is in
// place; the event carries the buffer's own error (an error buffer, a failed
// transfer) instead when it has one. The range is the caller's to check.
StatusOr<runtime::EventPtr> readRaw(PJRT_Buffer& buffer, void* dst, uint64_t offset,
                                    uint64_t bytes);

}  // namespace jft::pjrt
