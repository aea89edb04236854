// Views of foreign device memory and the stream extension.
#include "pjrt/dlpack.h"

#include <memory>
#include <string>

#include "pjrt/args.h"
#include "pjrt/buffer.h"
#include "pjrt/client.h"
#include "pjrt/device.h"
#include "pjrt/entry_points.h"
#include "pjrt/memory.h"
#include "pjrt/shape.h"

namespace jft::pjrt {
namespace {

JFT_PJRT_ENTRY(getStream, Get_Stream_For_External_Ready_Events, stream, {
  JFT_RETURN_IF_ERROR(requireNonNull(args->device, "device", kName));
  JFT_RETURN_IF_ERROR(requireAddressable(*args->device, kName));
  void* stream = args->device->runtime->nativeStream();
  if (stream == nullptr)
    return unimplemented(std::string(kName) + ": " + args->device->runtime->info().name +
                         " has no stream");
  args->stream = reinterpret_cast<intptr_t>(stream);
})

JFT_PJRT_ENTRY(waitStream, Wait_Until_Buffer_Ready_On_Stream, buffer, {
  JFT_RETURN_IF_ERROR(requireNonNull(args->buffer, "buffer", kName));
  PJRT_Buffer& buffer = *args->buffer;
  if (buffer.isDeleted())
    return failedPrecondition(std::string(kName) +
                              ": the buffer has been deleted or donated");
  // Our ready events complete once the GPU finished the producing work, so
  // any later work on the consumer's stream sees the data. Waiting here on
  // the host costs latency, never correctness.
  if (buffer.ready == nullptr) return Status::ok();
  Status status = buffer.ready->await();
  if (!status.isOk()) return status.withContext(kName);
})

}  // namespace

JFT_PJRT_ENTRY(clientCreateViewOfDeviceBuffer, Client_CreateViewOfDeviceBuffer, buffer, {
  JFT_RETURN_IF_ERROR(requireNonNull(args->client, "client", kName));
  PJRT_Client& client = *args->client;
  JFT_ASSIGN_OR_RETURN(DenseShape shape,
                       denseShape(args->element_type, args->dims, args->num_dims, kName));
  if (shape.bytes > 0 && args->device_buffer_ptr == nullptr)
    return invalidArgument(std::string(kName) + ": device_buffer_ptr is null");
  // Any dense order of the dims can be viewed (a transposed torch tensor);
  // the buffer keeps it as its layout.
  JFT_ASSIGN_OR_RETURN(std::vector<int64_t> order,
                       layoutOrder(args->layout, shape.dims, shape.element_bytes, kName));
  // `memory` (when the caller's struct has it) wins over `device`, as for
  // BufferFromHostBuffer. A view of "pinned_host" memory is a page-locked host
  // array (DLPack's kDLCUDAHost, e.g. torch's pin_memory()).
  const bool hasMemory =
      args->struct_size >=
      JFT_ABI_SIZE_UP_TO(PJRT_Client_CreateViewOfDeviceBuffer_Args, memory);
  JFT_ASSIGN_OR_RETURN(
      BufferTarget target,
      resolveTarget(client, args->device, hasMemory ? args->memory : nullptr, kName));
  PJRT_Device* device = target.device;
  if (!device->addressable()) return requireAddressable(*device, kName);
  if (args->stream != 0) {
    Status waited = device->runtime->waitForStream(reinterpret_cast<void*>(args->stream));
    if (!waited.isOk()) return waited.withContext(kName);
  }

  auto buffer = describeBuffer(client, target, args->element_type, std::move(shape.dims),
                               shape.bytes);
  buffer->minor_to_major = std::move(order);
  if (buffer->pinned_host) {
    buffer->host = args->device_buffer_ptr;
  } else {
    buffer->address =
        static_cast<uint64_t>(reinterpret_cast<uintptr_t>(args->device_buffer_ptr));
  }
  buffer->view = true;
  buffer->ready = runtime::Event::ready();
  if (args->on_delete_callback != nullptr) {
    auto callback = args->on_delete_callback;
    void* pointer = args->device_buffer_ptr;
    void* userArg = args->on_delete_callback_arg;
    buffer->on_view_deleted = [callback, pointer, userArg] {
      callback(pointer, userArg);
    };
  }
  args->buffer = buffer.release();
})

PJRT_Extension_Base* streamExtension(PJRT_Extension_Base* next) {
  static PJRT_Stream_Extension* extension = [next] {
    auto* made = new PJRT_Stream_Extension{};  // never destroyed: jaxlib keeps it
    made->base.struct_size = sizeof(PJRT_Stream_Extension);
    made->base.type = PJRT_Extension_Type_Stream;
    made->base.next = next;
    made->get_stream = &getStream;
    made->wait_stream = &waitStream;
    return made;
  }();
  return &extension->base;
}

}  // namespace jft::pjrt
