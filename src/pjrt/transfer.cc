// Transfers between host and device, and between devices.
#include <cstring>
#include <memory>

#include "pjrt/args.h"
#include "pjrt/buffer.h"
#include "pjrt/client.h"
#include "pjrt/element_types.h"
#include "pjrt/entry_points.h"
#include "pjrt/error.h"
#include "pjrt/event.h"
#include "pjrt/shape.h"

namespace jft::pjrt {

using Target = BufferTarget;

StatusOr<Target> resolveTarget(PJRT_Client& client, PJRT_Device* device,
                               PJRT_Memory* memory, const char* function) {
  if (memory != nullptr) {
    if (!client.ownsMemory(memory))
      return invalidArgument(std::string(function) +
                             ": memory does not belong to the client");
    MemorySpace* space = unwrap(memory);
    if (space->devices.empty())
      return invalidArgument(std::string(function) + ": memory has no device");
    return Target{space->devices.front(), memory};
  }
  if (device == nullptr)
    return invalidArgument(std::string(function) + ": neither device nor memory is set");
  if (device->client == &client && !device->addressable())
    return requireAddressable(*device, function);
  if (!client.ownsDevice(device))
    return invalidArgument(std::string(function) +
                           ": device does not belong to the client");
  return Target{device, device->default_memory};
}

std::unique_ptr<PJRT_Buffer> describeBuffer(PJRT_Client& client, Target target,
                                            PJRT_Buffer_Type type,
                                            std::vector<int64_t> dims,
                                            uint64_t byte_size) {
  auto buffer = std::make_unique<PJRT_Buffer>();
  buffer->client = &client;
  buffer->device = target.device;
  buffer->memory = target.memory;
  buffer->type = type;
  buffer->dims = std::move(dims);
  buffer->byte_size = byte_size;
  buffer->pinned_host = target.memory != nullptr && unwrap(target.memory)->pinned_host;
  return buffer;
}

StatusOr<std::unique_ptr<PJRT_Buffer>> allocateBuffer(PJRT_Client& client, Target target,
                                                      PJRT_Buffer_Type type,
                                                      std::vector<int64_t> dims,
                                                      uint64_t byte_size) {
  auto buffer = describeBuffer(client, target, type, std::move(dims), byte_size);
  if (buffer->pinned_host) {
    JFT_ASSIGN_OR_RETURN(buffer->host, target.device->runtime->allocatePinned(byte_size));
  } else {
    JFT_ASSIGN_OR_RETURN(buffer->address, target.device->runtime->allocate(byte_size));
  }
  return buffer;
}

namespace {

constexpr const char* kFromHost = "PJRT_Client_BufferFromHostBuffer";

// Copies `bytes` out of a pinned-host buffer once its data is in place.
runtime::EventPtr readPinned(PJRT_Buffer& buffer, void* dst, uint64_t offset,
                             uint64_t bytes) {
  auto done = runtime::Event::create();
  const char* src = static_cast<const char*>(buffer.host) + offset;
  buffer.ready->onReady([done, dst, src, bytes](const Status& status) {
    if (status.isOk() && bytes > 0) std::memcpy(dst, src, bytes);
    done->complete(status);
  });
  return done;
}

Status checkSemantics(PJRT_HostBufferSemantics semantics) {
  if (semantics < PJRT_HostBufferSemantics_kImmutableOnlyDuringCall ||
      semantics > PJRT_HostBufferSemantics_kMutableZeroCopy) {
    return invalidArgument(std::string(kFromHost) + ": unknown host buffer semantics " +
                           std::to_string(static_cast<int>(semantics)));
  }
  return Status::ok();
}

}  // namespace

JFT_PJRT_ENTRY(clientBufferFromHostBuffer, Client_BufferFromHostBuffer, buffer, {
  JFT_RETURN_IF_ERROR(requireNonNull(args->client, "client", kName));
  PJRT_Client& client = *args->client;
  JFT_RETURN_IF_ERROR(checkSemantics(args->host_buffer_semantics));
  JFT_ASSIGN_OR_RETURN(DenseShape shape,
                       denseShape(args->type, args->dims, args->num_dims, kName));
  if (shape.bytes > 0 && args->data == nullptr)
    return invalidArgument(std::string(kName) + ": data is null");
  if (args->num_byte_strides != 0 && args->num_byte_strides != args->num_dims)
    return invalidArgument(std::string(kName) + ": " +
                           std::to_string(args->num_byte_strides) + " byte strides for " +
                           std::to_string(args->num_dims) + " dimensions");
  if (args->num_byte_strides != 0 && args->byte_strides == nullptr)
    return invalidArgument(std::string(kName) + ": byte_strides is null");
  JFT_ASSIGN_OR_RETURN(
      std::vector<int64_t> order,
      layoutOrder(args->device_layout, shape.dims, shape.element_bytes, kName));
  JFT_ASSIGN_OR_RETURN(Target target,
                       resolveTarget(client, args->device, args->memory, kName));

  // Strided host data is packed into a dense staging copy first.
  const void* source = args->data;
  std::shared_ptr<std::vector<unsigned char>> staging;
  if (args->num_byte_strides != 0) {
    std::span<const int64_t> strides(args->byte_strides, args->num_byte_strides);
    if (!stridesAreDense(shape.dims, strides, shape.element_bytes)) {
      staging = std::make_shared<std::vector<unsigned char>>(shape.bytes);
      packStrided(args->data, shape.dims, strides, shape.element_bytes, staging->data());
      source = staging->data();
    }
  }
  // A device layout other than row-major: the staging copy holds the
  // elements in its order.
  if (!order.empty()) {
    auto ordered = std::make_shared<std::vector<unsigned char>>(shape.bytes);
    repackOrder(source, shape.dims, {}, order, shape.element_bytes, ordered->data());
    staging = std::move(ordered);
    source = staging->data();
  }

  JFT_ASSIGN_OR_RETURN(
      auto buffer, allocateBuffer(client, target, args->type, shape.dims, shape.bytes));
  buffer->minor_to_major = std::move(order);
  if (buffer->pinned_host) {
    // Host to pinned host is a plain copy, finished before we return.
    if (shape.bytes > 0) std::memcpy(buffer->host, source, shape.bytes);
    buffer->ready = runtime::Event::ready();
    args->done_with_host_buffer = wrapEvent(runtime::Event::ready());
    args->buffer = buffer.release();
    return Status::ok();
  }
  // Under this semantics the caller may reuse `data` as soon as we return.
  bool waitForSource =
      args->host_buffer_semantics == PJRT_HostBufferSemantics_kImmutableOnlyDuringCall &&
      !staging;
  auto copied = target.device->runtime->copyToDevice(buffer->address, source, shape.bytes,
                                                     waitForSource);
  if (!copied.isOk()) {
    buffer->release();
    return copied.status().withContext(kName);
  }
  runtime::EventPtr done = *copied;
  if (staging) done->onReady([staging](const Status&) {});  // keep it alive until then
  buffer->ready = done;
  args->done_with_host_buffer = wrapEvent(staging ? runtime::Event::ready() : done);
  args->buffer = buffer.release();
})

JFT_PJRT_ENTRY(bufferToHostBuffer, Buffer_ToHostBuffer, event, {
  JFT_RETURN_IF_ERROR(requireNonNull(args->src, "src", kName));
  PJRT_Buffer& buffer = *args->src;
  auto elementBytes = transferableElementBytes(buffer.type);
  if (!elementBytes.isOk()) return elementBytes.status().withContext(kName);
  // The host gets the order it asks for (its layout's; the buffer's own
  // when it names none): read as the bytes lie, then repacked on the host.
  const std::vector<int64_t> stored = buffer.layoutOrder();
  std::vector<int64_t> wanted = stored;
  if (args->host_layout != nullptr) {
    JFT_ASSIGN_OR_RETURN(
        wanted, layoutOrder(args->host_layout, buffer.dims, *elementBytes, kName));
  }
  if (args->dst == nullptr) {
    args->dst_size = buffer.byte_size;
    args->event = nullptr;
    return Status::ok();
  }
  if (args->dst_size < buffer.byte_size)
    return invalidArgument(std::string(kName) + ": dst_size " +
                           std::to_string(args->dst_size) + " is smaller than the " +
                           std::to_string(buffer.byte_size) + " bytes of the buffer");
  if (buffer.isDeleted())
    return failedPrecondition(std::string(kName) + ": the buffer has been deleted");
  if (wanted == stored) {
    auto read = readRaw(buffer, args->dst, 0, buffer.byte_size);
    if (!read.isOk()) return read.status().withContext(kName);
    args->event = wrapEvent(*read);
    return Status::ok();
  }
  auto raw = std::make_shared<std::vector<unsigned char>>(buffer.byte_size);
  auto read = readRaw(buffer, raw->data(), 0, buffer.byte_size);
  if (!read.isOk()) return read.status().withContext(kName);
  auto done = runtime::Event::create();
  (*read)->onReady([done, raw, dims = buffer.dims, stored, wanted,
                    element = *elementBytes, dst = args->dst](const Status& status) {
    if (status.isOk()) repackOrder(raw->data(), dims, stored, wanted, element, dst);
    done->complete(status);
  });
  args->event = wrapEvent(done);
})

namespace {

Status checkRange(const PJRT_Buffer& buffer, int64_t offset, int64_t size,
                  const char* function) {
  if (offset < 0 || size < 0 || static_cast<uint64_t>(offset) > buffer.byte_size ||
      static_cast<uint64_t>(size) > buffer.byte_size - static_cast<uint64_t>(offset))
    return invalidArgument(std::string(function) + ": range [" + std::to_string(offset) +
                           ", +" + std::to_string(size) + ") is outside the buffer of " +
                           std::to_string(buffer.byte_size) + " bytes");
  return Status::ok();
}

// What CopyRawToHostFuture hands out as callback_data: the copy waits for the
// caller to name its destination through the callback, called exactly once.
struct RawCopyPromise {
  PJRT_Buffer* buffer;
  uint64_t offset;
  uint64_t bytes;
  runtime::EventPtr done;
};

void fulfilRawCopy(PJRT_Buffer_CopyRawToHostFuture_Callback_Args* args) {
  if (args == nullptr || args->callback_data == nullptr) return;
  std::unique_ptr<RawCopyPromise> promise(
      static_cast<RawCopyPromise*>(args->callback_data));
  if (args->error_code != PJRT_Error_Code_OK) {
    std::string message =
        args->error_message == nullptr
            ? std::string()
            : std::string(args->error_message, args->error_message_size);
    promise->done->complete(Status(fromPjrtCode(args->error_code), std::move(message)));
    return;
  }
  if (args->dst == nullptr && promise->bytes > 0) {
    promise->done->complete(
        invalidArgument("PJRT_Buffer_CopyRawToHostFuture: the destination given to the "
                        "callback is null"));
    return;
  }
  auto read = readRaw(*promise->buffer, args->dst, promise->offset, promise->bytes);
  if (!read.isOk()) {
    promise->done->complete(read.status());
    return;
  }
  runtime::EventPtr done = promise->done;
  (*read)->onReady([done](const Status& status) { done->complete(status); });
}

}  // namespace

StatusOr<runtime::EventPtr> readRaw(PJRT_Buffer& buffer, void* dst, uint64_t offset,
                                    uint64_t bytes) {
  if (buffer.ready->isReady() && !buffer.ready->status().isOk()) return buffer.ready;
  bool incomplete;
  {
    std::lock_guard<std::mutex> lock(buffer.mutex);
    incomplete = buffer.incomplete;
  }
  if (incomplete) {
    // The data is still to come: read once it is there.
    auto done = runtime::Event::create();
    PJRT_Buffer* source = &buffer;
    buffer.ready->onReady([done, source, dst, offset, bytes](const Status& status) {
      if (!status.isOk()) return done->complete(status);
      auto read = readRaw(*source, dst, offset, bytes);
      if (!read.isOk()) return done->complete(read.status());
      (*read)->onReady([done](const Status& s) { done->complete(s); });
    });
    return done;
  }
  if (buffer.pinned_host) return readPinned(buffer, dst, offset, bytes);
  if (bytes == 0) return buffer.ready;
  JFT_ASSIGN_OR_RETURN(
      runtime::EventPtr copied,
      buffer.device->runtime->copyToHost(dst, buffer.address + offset, bytes));
  return runtime::whenAll({buffer.ready, copied});
}

JFT_PJRT_ENTRY(bufferCopyRawToHost, Buffer_CopyRawToHost, event, {
  JFT_RETURN_IF_ERROR(requireNonNull(args->buffer, "buffer", kName));
  PJRT_Buffer& buffer = *args->buffer;
  JFT_RETURN_IF_ERROR(checkRange(buffer, args->offset, args->transfer_size, kName));
  if (args->transfer_size > 0 && args->dst == nullptr)
    return invalidArgument(std::string(kName) + ": dst is null");
  if (buffer.isDeleted())
    return failedPrecondition(std::string(kName) + ": the buffer has been deleted");
  auto read = readRaw(buffer, args->dst, static_cast<uint64_t>(args->offset),
                      static_cast<uint64_t>(args->transfer_size));
  if (!read.isOk()) return read.status().withContext(kName);
  args->event = wrapEvent(*read);
})

JFT_PJRT_ENTRY(
    bufferCopyRawToHostFuture, Buffer_CopyRawToHostFuture, future_ready_callback, {
      JFT_RETURN_IF_ERROR(requireNonNull(args->buffer, "buffer", kName));
      PJRT_Buffer& buffer = *args->buffer;
      JFT_RETURN_IF_ERROR(checkRange(buffer, args->offset, args->transfer_size, kName));
      if (buffer.isDeleted())
        return failedPrecondition(std::string(kName) + ": the buffer has been deleted");
      auto promise = std::make_unique<RawCopyPromise>();
      promise->buffer = &buffer;
      promise->offset = static_cast<uint64_t>(args->offset);
      promise->bytes = static_cast<uint64_t>(args->transfer_size);
      promise->done = runtime::Event::create();
      args->event = wrapEvent(promise->done);
      args->future_ready_callback = &fulfilRawCopy;
      args->callback_data = promise.release();
    })

namespace {

StatusOr<PJRT_Buffer*> copyBuffer(PJRT_Buffer& source, Target target,
                                  const char* function) {
  if (source.isDeleted())
    return failedPrecondition(std::string(function) + ": the buffer has been deleted");
  {
    std::lock_guard<std::mutex> lock(source.mutex);
    if (source.incomplete)
      return failedPrecondition(std::string(function) +
                                ": the buffer's data has not all arrived yet (its "
                                "transfer manager's last transfer, or the alias's "
                                "fulfilment, is still to come)");
  }
  if (source.ready->isReady() && !source.ready->status().isOk())
    return makeErrorBuffer(*source.client, target, source.type, source.dims,
                           source.byte_size, source.ready->status())
        .release();
  JFT_ASSIGN_OR_RETURN(auto copy, allocateBuffer(*source.client, target, source.type,
                                                 source.dims, source.byte_size));
  copy->minor_to_major = source.layoutOrder();  // the bytes are copied as they lie
  StatusOr<runtime::EventPtr> copied = runtime::Event::ready();
  if (source.pinned_host && copy->pinned_host) {
    copied = readPinned(source, copy->host, 0, source.byte_size);
  } else if (source.pinned_host) {
    // A pending DMA into the source may be on another device's queue.
    if (!source.ready->isReady()) JFT_RETURN_IF_ERROR(source.ready->await());
    copied = target.device->runtime->copyPinnedToDevice(copy->address, source.host,
                                                        source.byte_size);
  } else if (copy->pinned_host) {
    // Read on the source's queue, after whatever defines the source.
    copied = source.device->runtime->copyDeviceToPinned(copy->host, source.address,
                                                        source.byte_size);
  } else {
    copied = target.device->runtime->copyFromDevice(
        copy->address, *source.device->runtime, source.address, source.byte_size);
  }
  if (!copied.isOk()) {
    copy->release();
    return copied.status().withContext(function);
  }
  copy->ready = runtime::whenAll({source.ready, *copied});
  return copy.release();
}

}  // namespace

JFT_PJRT_ENTRY(bufferCopyToDevice, Buffer_CopyToDevice, dst_buffer, {
  JFT_RETURN_IF_ERROR(requireNonNull(args->buffer, "buffer", kName));
  JFT_ASSIGN_OR_RETURN(Target target, resolveTarget(*args->buffer->client,
                                                    args->dst_device, nullptr, kName));
  JFT_ASSIGN_OR_RETURN(args->dst_buffer, copyBuffer(*args->buffer, target, kName));
})

JFT_PJRT_ENTRY(bufferCopyToMemory, Buffer_CopyToMemory, dst_buffer, {
  JFT_RETURN_IF_ERROR(requireNonNull(args->buffer, "buffer", kName));
  JFT_RETURN_IF_ERROR(requireNonNull(args->dst_memory, "dst_memory", kName));
  JFT_ASSIGN_OR_RETURN(Target target, resolveTarget(*args->buffer->client, nullptr,
                                                    args->dst_memory, kName));
  JFT_ASSIGN_OR_RETURN(args->dst_buffer, copyBuffer(*args->buffer, target, kName));
})

}  // namespace jft::pjrt
