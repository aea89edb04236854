// The async host-to-device transfer manager (transfer_manager.h).
#include "pjrt/transfer_manager.h"

#include <cstring>
#include <memory>

#include "pjrt/args.h"
#include "pjrt/client.h"
#include "pjrt/element_types.h"
#include "pjrt/entry_points.h"
#include "pjrt/error.h"
#include "pjrt/event.h"
#include "pjrt/shape.h"

using Manager = PJRT_AsyncHostToDeviceTransferManager;

namespace {

// Marks the slot's buffer complete: `error`, or once every chunk copy is done.
void finish(Manager::Slot& slot, jft::Status error) {
  slot.finished = true;
  PJRT_Buffer* buffer = slot.buffer;
  {
    std::lock_guard<std::mutex> lock(buffer->mutex);
    buffer->incomplete = false;
  }
  jft::runtime::EventPtr ready = buffer->ready;
  if (!error.isOk()) {
    ready->complete(std::move(error));
  } else {
    jft::runtime::EventPtr copies = slot.copies.empty()
                                        ? jft::runtime::Event::ready()
                                        : jft::runtime::whenAll(slot.copies);
    copies->onReady([ready](const jft::Status& status) { ready->complete(status); });
  }
  slot.copies.clear();
  // The manager's hold (see create): the buffer may now go with its owner.
  (void)PJRT_Buffer::dropExternalReference(buffer);
}

}  // namespace

PJRT_AsyncHostToDeviceTransferManager::~PJRT_AsyncHostToDeviceTransferManager() {
  for (Slot& slot : slots) {
    if (!slot.finished)
      finish(slot, jft::failedPrecondition(
                       "the transfer manager was destroyed before the buffer's last "
                       "transfer"));
    if (!slot.retrieved) PJRT_Buffer::destroy(slot.buffer);
  }
}

namespace jft::pjrt {
namespace {

StatusOr<Manager::Slot*> slotAt(Manager& manager, int index, const char* function) {
  if (index < 0 || static_cast<size_t>(index) >= manager.slots.size())
    return invalidArgument(std::string(function) + ": buffer_index " +
                           std::to_string(index) + " is outside the manager's " +
                           std::to_string(manager.slots.size()) + " buffers");
  return &manager.slots[static_cast<size_t>(index)];
}

// Copies `bytes` from `data` into the slot's buffer at `offset`; the event
// completes when `data` may be reused.
StatusOr<runtime::EventPtr> transfer(Manager::Slot& slot, const void* data,
                                     int64_t offset, int64_t bytes, bool last,
                                     const char* function) {
  if (slot.finished)
    return failedPrecondition(
        std::string(function) +
        ": the buffer's last transfer (or error) was already given");
  PJRT_Buffer& buffer = *slot.buffer;
  if (offset < 0 || bytes < 0 || static_cast<uint64_t>(offset) > buffer.byte_size ||
      static_cast<uint64_t>(bytes) > buffer.byte_size - static_cast<uint64_t>(offset))
    return invalidArgument(std::string(function) + ": range [" + std::to_string(offset) +
                           ", +" + std::to_string(bytes) + ") is outside the buffer of " +
                           std::to_string(buffer.byte_size) + " bytes");
  if (bytes > 0 && data == nullptr)
    return invalidArgument(std::string(function) + ": data is null");
  runtime::EventPtr copied = runtime::Event::ready();
  if (bytes > 0 && buffer.pinned_host) {
    std::memcpy(static_cast<char*>(buffer.host) + offset, data,
                static_cast<size_t>(bytes));
  } else if (bytes > 0) {
    auto started = buffer.device->runtime->copyToDevice(
        buffer.address + static_cast<uint64_t>(offset), data,
        static_cast<uint64_t>(bytes));
    if (!started.isOk()) return started.status().withContext(function);
    copied = *started;
  }
  slot.copies.push_back(copied);
  if (last) finish(slot, Status::ok());
  return copied;
}

}  // namespace

JFT_PJRT_ENTRY(
    clientCreateBuffersForAsyncHostToDevice, Client_CreateBuffersForAsyncHostToDevice,
    transfer_manager, {
      JFT_RETURN_IF_ERROR(requireNonNull(args->client, "client", kName));
      JFT_RETURN_IF_ERROR(requireNonNull(args->memory, "memory", kName));
      if (args->num_shape_specs > 0 && args->shape_specs == nullptr)
        return invalidArgument(std::string(kName) + ": shape_specs is null");
      if (args->num_device_layouts != 0 &&
          args->num_device_layouts != args->num_shape_specs)
        return invalidArgument(
            std::string(kName) + ": " + std::to_string(args->num_device_layouts) +
            " device layouts for " + std::to_string(args->num_shape_specs) + " shapes");
      PJRT_Client& client = *args->client;
      JFT_ASSIGN_OR_RETURN(BufferTarget target,
                           resolveTarget(client, nullptr, args->memory, kName));
      auto manager = std::make_unique<Manager>();
      manager->client = &client;
      manager->device = target.device;
      manager->memory = target.memory;
      for (size_t i = 0; i < args->num_shape_specs; ++i) {
        const PJRT_ShapeSpec& spec = args->shape_specs[i];
        const std::string where = std::string(kName) + ": shape " + std::to_string(i);
        JFT_ASSIGN_OR_RETURN(DenseShape shape, denseShape(spec.element_type, spec.dims,
                                                          spec.num_dims, where));
        const PJRT_Buffer_MemoryLayout* layout =
            args->num_device_layouts != 0 && args->device_layouts != nullptr
                ? args->device_layouts[i]
                : nullptr;
        if (!isDefaultLayout(layout, shape.dims, shape.element_bytes))
          return unimplemented(where +
                               ": only the dense major-to-minor layout is supported");
        auto buffer =
            allocateBuffer(client, target, spec.element_type, shape.dims, shape.bytes);
        if (!buffer.isOk()) return buffer.status().withContext(where);
        (*buffer)->ready = runtime::Event::create();
        (*buffer)->incomplete = true;
        // Held until the last transfer (finish), so a caller destroying a
        // retrieved buffer early defers the free instead of leaving us a
        // dangling slot.
        (*buffer)->external_references = 1;
        Manager::Slot slot;
        slot.buffer = buffer->release();
        manager->slots.push_back(std::move(slot));
      }
      args->transfer_manager = manager.release();
    })

JFT_PJRT_ENTRY(transferManagerDestroy, AsyncHostToDeviceTransferManager_Destroy,
               transfer_manager, { delete args->transfer_manager; })

// Checks the args and the manager, locks it, then runs `body`.
#define JFT_MANAGER_ENTRY(Function, Name, lastField, ...)                             \
  JFT_PJRT_OBJECT_ENTRY(Function, AsyncHostToDeviceTransferManager_##Name, lastField, \
                        transfer_manager, Manager& manager = *args->transfer_manager, \
                        std::lock_guard<std::mutex> lock(manager.mutex);              \
                        __VA_ARGS__)

JFT_MANAGER_ENTRY(transferManagerTransferData, TransferData, done_with_h2d_transfer, {
  JFT_ASSIGN_OR_RETURN(Manager::Slot * slot, slotAt(manager, args->buffer_index, kName));
  JFT_ASSIGN_OR_RETURN(runtime::EventPtr done,
                       transfer(*slot, args->data, args->offset, args->transfer_size,
                                args->is_last_transfer, kName));
  args->done_with_h2d_transfer = wrapEvent(done);
})

JFT_MANAGER_ENTRY(transferManagerTransferLiteral, TransferLiteral, done_with_h2d_transfer,
                  {
                    JFT_ASSIGN_OR_RETURN(Manager::Slot * slot,
                                         slotAt(manager, args->buffer_index, kName));
                    PJRT_Buffer& buffer = *slot->buffer;
                    Status dimsOk = validateDims(args->shape_dims, args->shape_num_dims);
                    if (!dimsOk.isOk()) return dimsOk.withContext(kName);
                    std::vector<int64_t> dims(args->shape_dims,
                                              args->shape_dims + args->shape_num_dims);
                    if (args->shape_element_type != buffer.type || dims != buffer.dims)
                      return invalidArgument(
                          std::string(kName) +
                          ": the literal's shape differs from the buffer's");
                    auto elementBytes = transferableElementBytes(buffer.type);
                    if (!elementBytes.isOk())
                      return elementBytes.status().withContext(kName);
                    if (!isDefaultLayout(args->shape_layout, dims, *elementBytes))
                      return unimplemented(
                          std::string(kName) +
                          ": only the dense major-to-minor literal layout is supported");
                    JFT_ASSIGN_OR_RETURN(runtime::EventPtr done,
                                         transfer(*slot, args->data, 0,
                                                  static_cast<int64_t>(buffer.byte_size),
                                                  /*last=*/true, kName));
                    args->done_with_h2d_transfer = wrapEvent(done);
                  })

JFT_MANAGER_ENTRY(transferManagerRetrieveBuffer, RetrieveBuffer, buffer_out, {
  JFT_ASSIGN_OR_RETURN(Manager::Slot * slot, slotAt(manager, args->buffer_index, kName));
  if (slot->retrieved)
    return failedPrecondition(std::string(kName) + ": buffer " +
                              std::to_string(args->buffer_index) +
                              " was already retrieved");
  slot->retrieved = true;
  args->buffer_out = slot->buffer;
})

JFT_MANAGER_ENTRY(transferManagerDevice, Device, device_out,
                  args->device_out = manager.device)

JFT_MANAGER_ENTRY(transferManagerBufferCount, BufferCount, buffer_count,
                  args->buffer_count = manager.slots.size())

JFT_MANAGER_ENTRY(transferManagerBufferSize, BufferSize, buffer_size, {
  JFT_ASSIGN_OR_RETURN(Manager::Slot * slot, slotAt(manager, args->buffer_index, kName));
  args->buffer_size = slot->buffer->byte_size;
})

JFT_MANAGER_ENTRY(transferManagerSetBufferError, SetBufferError, error_message_size, {
  JFT_ASSIGN_OR_RETURN(Manager::Slot * slot, slotAt(manager, args->buffer_index, kName));
  if (args->error_code <= PJRT_Error_Code_OK ||
      args->error_code > PJRT_Error_Code_UNAUTHENTICATED)
    return invalidArgument(std::string(kName) + ": error code " +
                           std::to_string(static_cast<int>(args->error_code)) +
                           " is not an error (1..16)");
  if (slot->finished)
    return failedPrecondition(
        std::string(kName) + ": the buffer's last transfer (or error) was already given");
  std::string message = args->error_message == nullptr
                            ? std::string()
                            : std::string(args->error_message, args->error_message_size);
  finish(*slot, Status(fromPjrtCode(args->error_code), std::move(message)));
})

// Metadata describes a transfer for cross-host receivers; a local copy has
// no use for it, so it is accepted and dropped.
JFT_MANAGER_ENTRY(transferManagerAddMetadata, AddMetadata, num_metadata, {
  if (args->num_metadata > 0 && args->transfer_metadata == nullptr)
    return invalidArgument(std::string(kName) + ": transfer_metadata is null");
})

#undef JFT_MANAGER_ENTRY

}  // namespace jft::pjrt
