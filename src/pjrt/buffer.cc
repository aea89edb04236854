// Buffer queries and lifetime.
#include "pjrt/buffer.h"

#include "pjrt/args.h"
#include "pjrt/device.h"
#include "pjrt/entry_points.h"
#include "pjrt/event.h"
#include "pjrt/shape.h"

void PJRT_Buffer::release() {
  if (alias_link != nullptr) {
    bool pending;
    {
      std::lock_guard<std::mutex> lock(alias_link->mutex);
      pending = alias_link->alias != nullptr;
      alias_link->alias = nullptr;
    }
    // Nobody will fulfil it now: whoever waits on it learns so.
    if (pending)
      ready->complete(jft::failedPrecondition(
          "the alias buffer was deleted before it was fulfilled"));
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (deleted) return;
    deleted = true;
    if (external_references > 0) {
      free_deferred = true;
      return;
    }
  }
  freeMemory();
}

void PJRT_Buffer::freeMemory() {
  uint64_t toFree = 0;
  void* hostToFree = nullptr;
  std::function<void()> viewDone;
  {
    std::lock_guard<std::mutex> lock(mutex);
    toFree = address;
    hostToFree = host;
    viewDone = std::move(on_view_deleted);
    on_view_deleted = nullptr;
    address = 0;
    host = nullptr;
  }
  if (view) {
    // The owner may reuse the memory once our queued reads of it are done. On an
    // idle queue its callback runs here, on the deleting thread: a framework's
    // deleter may need that thread's interpreter lock (cupy's does).
    if (viewDone) device->runtime->afterQueuedWork(std::move(viewDone));
    return;
  }
  if (toFree != 0) device->runtime->deallocate(toFree, byte_size);
  if (hostToFree != nullptr) device->runtime->deallocatePinned(hostToFree);
}

jft::Status PJRT_Buffer::dropExternalReference(PJRT_Buffer* buffer) {
  bool free = false, destroyNow = false;
  {
    std::lock_guard<std::mutex> lock(buffer->mutex);
    if (buffer->external_references == 0)
      return jft::failedPrecondition(
          "PJRT_Buffer_DecreaseExternalReferenceCount: the buffer holds no external "
          "reference");
    if (--buffer->external_references == 0) {
      free = buffer->free_deferred;
      buffer->free_deferred = false;
      destroyNow = buffer->destroy_deferred;
    }
  }
  if (free) buffer->freeMemory();
  if (destroyNow) delete buffer;
  return jft::Status::ok();
}

void PJRT_Buffer::destroy(PJRT_Buffer* buffer) {
  buffer->release();
  {
    std::lock_guard<std::mutex> lock(buffer->mutex);
    if (buffer->external_references > 0) {
      // A DLPack consumer still reads the memory: the last reference deletes us.
      buffer->destroy_deferred = true;
      return;
    }
  }
  delete buffer;
}

bool PJRT_Buffer::isDeleted() {
  std::lock_guard<std::mutex> lock(mutex);
  return deleted;
}

std::vector<int64_t> PJRT_Buffer::layoutOrder() {
  std::lock_guard<std::mutex> lock(mutex);
  return jft::pjrt::canonicalOrder(minor_to_major);
}

namespace jft::pjrt {

JFT_PJRT_ENTRY(bufferDestroy, Buffer_Destroy, buffer, {
  if (args->buffer == nullptr) return Status::ok();
  PJRT_Buffer::destroy(args->buffer);
})

#define JFT_BUFFER_ENTRY(Function, Name, lastField, ...)   \
  JFT_PJRT_OBJECT_ENTRY(Function, Name, lastField, buffer, \
                        PJRT_Buffer& buffer = *args->buffer, __VA_ARGS__)

JFT_BUFFER_ENTRY(bufferElementType, Buffer_ElementType, type, args->type = buffer.type)
JFT_BUFFER_ENTRY(bufferDimensions, Buffer_Dimensions, num_dims,
                 setView(args->dims, args->num_dims, buffer.dims))
JFT_BUFFER_ENTRY(bufferUnpaddedDimensions, Buffer_UnpaddedDimensions, num_dims,
                 setView(args->unpadded_dims, args->num_dims, buffer.dims))
JFT_BUFFER_ENTRY(bufferDynamicDimensionIndices, Buffer_DynamicDimensionIndices,
                 num_dynamic_dims, {
                   args->dynamic_dim_indices = nullptr;
                   args->num_dynamic_dims = 0;
                 })
JFT_BUFFER_ENTRY(bufferOnDeviceSizeInBytes, Buffer_OnDeviceSizeInBytes,
                 on_device_size_in_bytes,
                 args->on_device_size_in_bytes = buffer.byte_size)
JFT_BUFFER_ENTRY(bufferDevice, Buffer_Device, device, args->device = buffer.device)
JFT_BUFFER_ENTRY(bufferMemory, Buffer_Memory, memory, args->memory = buffer.memory)
JFT_BUFFER_ENTRY(bufferDelete, Buffer_Delete, buffer, buffer.release())
JFT_BUFFER_ENTRY(bufferIsDeleted, Buffer_IsDeleted, is_deleted,
                 args->is_deleted = buffer.isDeleted())
JFT_BUFFER_ENTRY(bufferGetMemoryLayout, Buffer_GetMemoryLayout, layout, {
  {
    std::lock_guard<std::mutex> lock(buffer.mutex);
    if (buffer.minor_to_major.size() != buffer.dims.size()) {
      buffer.minor_to_major.clear();
      for (size_t i = buffer.dims.size(); i-- > 0;)
        buffer.minor_to_major.push_back(static_cast<int64_t>(i));
    }
  }
  args->layout = PJRT_Buffer_MemoryLayout{};
  args->layout.struct_size = JFT_ABI_SIZE_UP_TO(PJRT_Buffer_MemoryLayout, type);
  args->layout.type = PJRT_Buffer_MemoryLayout_Type_Tiled;
  args->layout.tiled.struct_size =
      JFT_ABI_SIZE_UP_TO(PJRT_Buffer_MemoryLayout_Tiled, num_tiles);
  args->layout.tiled.minor_to_major = buffer.minor_to_major.data();
  args->layout.tiled.minor_to_major_size = buffer.minor_to_major.size();
})
JFT_BUFFER_ENTRY(bufferIsOnCpu, Buffer_IsOnCpu, is_on_cpu, args->is_on_cpu = false)
JFT_BUFFER_ENTRY(bufferReadyEvent, Buffer_ReadyEvent, event, {
  if (buffer.isDeleted()) {
    args->event = wrapEvent(runtime::Event::ready(
        failedPrecondition("PJRT_Buffer_ReadyEvent: the buffer has been deleted")));
  } else {
    args->event = wrapEvent(buffer.ready);
  }
})
JFT_BUFFER_ENTRY(bufferUnsafePointer, Buffer_UnsafePointer, buffer_pointer, {
  if (buffer.isDeleted())
    return failedPrecondition("PJRT_Buffer_UnsafePointer: deleted buffer");
  args->buffer_pointer = buffer.pinned_host ? reinterpret_cast<uintptr_t>(buffer.host)
                                            : static_cast<uintptr_t>(buffer.address);
})
JFT_BUFFER_ENTRY(bufferOpaqueDeviceMemoryDataPointer,
                 Buffer_OpaqueDeviceMemoryDataPointer, device_memory_ptr, {
                   if (buffer.isDeleted())
                     return failedPrecondition(
                         "PJRT_Buffer_OpaqueDeviceMemoryDataPointer: deleted buffer");
                   args->device_memory_ptr =
                       buffer.pinned_host ? buffer.host
                                          : reinterpret_cast<void*>(
                                                static_cast<uintptr_t>(buffer.address));
                 })
JFT_BUFFER_ENTRY(bufferIncreaseExternalReferenceCount,
                 Buffer_IncreaseExternalReferenceCount, buffer, {
                   std::lock_guard<std::mutex> lock(buffer.mutex);
                   if (buffer.deleted)
                     return failedPrecondition(
                         "PJRT_Buffer_IncreaseExternalReferenceCount: the buffer has "
                         "been deleted or donated");
                   ++buffer.external_references;
                 })
JFT_BUFFER_ENTRY(bufferDecreaseExternalReferenceCount,
                 Buffer_DecreaseExternalReferenceCount, buffer,
                 JFT_RETURN_IF_ERROR(PJRT_Buffer::dropExternalReference(&buffer)))
#undef JFT_BUFFER_ENTRY

}  // namespace jft::pjrt
