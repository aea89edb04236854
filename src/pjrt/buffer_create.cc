// Buffers made without a host array: uninitialized (memory only), error
// (no memory, its ready event carries the error, so reads and Execute fail
// with it) and alias buffers (a placeholder whose memory another buffer
// supplies later, through the fulfilment callback handed out with it).
#include <cstring>

#include "pjrt/args.h"
#include "pjrt/buffer.h"
#include "pjrt/client.h"
#include "pjrt/entry_points.h"
#include "pjrt/error.h"
#include "pjrt/memory.h"
#include "pjrt/shape.h"

// Plugin-defined: what CreateAliasBuffer hands out and FulfillAliasBuffer consumes.
struct PJRT_FulfillAliasBufferCallback {
  std::shared_ptr<jft::pjrt::AliasLink> link;
};

namespace jft::pjrt {
namespace {

// The caller's array, whose layout must be dense in some order of its dims.
struct LaidOutShape {
  DenseShape shape;
  std::vector<int64_t> order;  // minor to major; empty where row-major
};

StatusOr<LaidOutShape> checkShape(PJRT_Buffer_Type type, const int64_t* dims,
                                  size_t numDims, const PJRT_Buffer_MemoryLayout* layout,
                                  const char* function) {
  LaidOutShape out;
  JFT_ASSIGN_OR_RETURN(out.shape, denseShape(type, dims, numDims, function));
  JFT_ASSIGN_OR_RETURN(
      out.order, layoutOrder(layout, out.shape.dims, out.shape.element_bytes, function));
  return out;
}

Status checkErrorCode(PJRT_Error_Code code, const char* function) {
  if (code <= PJRT_Error_Code_OK || code > PJRT_Error_Code_UNAUTHENTICATED)
    return invalidArgument(std::string(function) + ": error code " +
                           std::to_string(static_cast<int>(code)) +
                           " is not an error (1..16)");
  return Status::ok();
}

Status errorOf(PJRT_Error_Code code, const char* message, size_t size) {
  return Status(fromPjrtCode(code),
                message == nullptr ? std::string() : std::string(message, size));
}

}  // namespace

std::unique_ptr<PJRT_Buffer> makeErrorBuffer(PJRT_Client& client, BufferTarget target,
                                             PJRT_Buffer_Type type,
                                             std::vector<int64_t> dims,
                                             uint64_t byte_size, Status error) {
  auto buffer = describeBuffer(client, target, type, std::move(dims), byte_size);
  buffer->ready = runtime::Event::ready(std::move(error));
  return buffer;
}

JFT_PJRT_ENTRY(
    clientCreateUninitializedBuffer, Client_CreateUninitializedBuffer, buffer, {
      JFT_RETURN_IF_ERROR(requireNonNull(args->client, "client", kName));
      JFT_ASSIGN_OR_RETURN(LaidOutShape laid,
                           checkShape(args->shape_element_type, args->shape_dims,
                                      args->shape_num_dims, args->shape_layout, kName));
      JFT_ASSIGN_OR_RETURN(BufferTarget target, resolveTarget(*args->client, args->device,
                                                              args->memory, kName));
      auto buffer = allocateBuffer(*args->client, target, args->shape_element_type,
                                   std::move(laid.shape.dims), laid.shape.bytes);
      if (!buffer.isOk()) return buffer.status().withContext(kName);
      (*buffer)->minor_to_major = std::move(laid.order);
      (*buffer)->ready = runtime::Event::ready();  // defined by whatever writes it next
      args->buffer = buffer->release();
    })

JFT_PJRT_ENTRY(clientCreateErrorBuffer, Client_CreateErrorBuffer, buffer, {
  JFT_RETURN_IF_ERROR(requireNonNull(args->client, "client", kName));
  JFT_RETURN_IF_ERROR(requireNonNull(args->memory, "memory", kName));
  JFT_RETURN_IF_ERROR(checkErrorCode(args->error_code, kName));
  Status error = errorOf(args->error_code, args->error_message, args->error_message_size);
  JFT_ASSIGN_OR_RETURN(LaidOutShape laid,
                       checkShape(args->shape_element_type, args->shape_dims,
                                  args->shape_num_dims, args->shape_layout, kName));
  JFT_ASSIGN_OR_RETURN(BufferTarget target,
                       resolveTarget(*args->client, nullptr, args->memory, kName));
  auto buffer =
      makeErrorBuffer(*args->client, target, args->shape_element_type,
                      std::move(laid.shape.dims), laid.shape.bytes, std::move(error));
  buffer->minor_to_major = std::move(laid.order);
  args->buffer = buffer.release();
})

JFT_PJRT_ENTRY(
    clientCreateAliasBuffer, Client_CreateAliasBuffer, fulfill_alias_buffer_cb, {
      JFT_RETURN_IF_ERROR(requireNonNull(args->client, "client", kName));
      JFT_RETURN_IF_ERROR(requireNonNull(args->memory, "memory", kName));
      JFT_ASSIGN_OR_RETURN(LaidOutShape laid,
                           checkShape(args->shape_element_type, args->shape_dims,
                                      args->shape_num_dims, args->shape_layout, kName));
      JFT_ASSIGN_OR_RETURN(BufferTarget target,
                           resolveTarget(*args->client, nullptr, args->memory, kName));
      auto alias =
          makeErrorBuffer(*args->client, target, args->shape_element_type,
                          std::move(laid.shape.dims), laid.shape.bytes, Status::ok());
      alias->minor_to_major = std::move(laid.order);
      alias->ready = runtime::Event::create();
      alias->incomplete = true;
      alias->alias_link = std::make_shared<AliasLink>();
      alias->alias_link->alias = alias.get();
      auto callback = std::make_unique<PJRT_FulfillAliasBufferCallback>();
      callback->link = alias->alias_link;
      args->alias_buffer = alias.release();
      args->fulfill_alias_buffer_cb = callback.release();
    })

JFT_PJRT_ENTRY(
    clientFulfillAliasBuffer, Client_FulfillAliasBuffer, fulfill_alias_buffer_cb, {
      JFT_RETURN_IF_ERROR(requireNonNull(args->fulfill_alias_buffer_cb,
                                         "fulfill_alias_buffer_cb", kName));
      // The callback is consumed by this call, whatever its outcome.
      std::unique_ptr<PJRT_FulfillAliasBufferCallback> callback(
          args->fulfill_alias_buffer_cb);
      std::lock_guard<std::mutex> linkLock(callback->link->mutex);
      PJRT_Buffer* alias = callback->link->alias;
      if (alias == nullptr)
        return failedPrecondition(std::string(kName) +
                                  ": the alias buffer was deleted or already fulfilled");
      if (args->status_code != PJRT_Error_Code_OK) {
        JFT_RETURN_IF_ERROR(checkErrorCode(args->status_code, kName));
        Status error =
            errorOf(args->status_code, args->error_message, args->error_message_size);
        callback->link->alias = nullptr;
        {
          std::lock_guard<std::mutex> lock(alias->mutex);
          alias->incomplete = false;
        }
        alias->ready->complete(std::move(error));
        return Status::ok();
      }
      JFT_RETURN_IF_ERROR(requireNonNull(args->buffer, "buffer", kName));
      PJRT_Buffer& source = *args->buffer;
      if (source.client != alias->client || source.memory != alias->memory)
        return invalidArgument(std::string(kName) +
                               ": the buffer is not in the alias's memory space");
      if (source.type != alias->type || source.dims != alias->dims)
        return invalidArgument(std::string(kName) +
                               ": the buffer's shape differs from the alias's");
      {
        // The alias reads the source's memory: an external reference keeps it
        // (no free, no donation) until the alias goes.
        std::lock_guard<std::mutex> lock(source.mutex);
        if (source.deleted || source.incomplete)
          return failedPrecondition(
              std::string(kName) + ": the buffer is deleted or still receiving its data");
        ++source.external_references;
      }
      PJRT_Buffer* keep = &source;
      callback->link->alias = nullptr;
      {
        std::lock_guard<std::mutex> lock(alias->mutex);
        alias->address = source.address;
        alias->host = source.host;
        alias->view = true;
        alias->on_view_deleted = [keep] {
          (void)PJRT_Buffer::dropExternalReference(keep);
        };
        alias->incomplete = false;
      }
      runtime::EventPtr aliasReady = alias->ready;
      source.ready->onReady(
          [aliasReady](const Status& status) { aliasReady->complete(status); });
    })

}  // namespace jft::pjrt
