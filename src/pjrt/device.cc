// Device and device-description entry points.
#include "pjrt/device.h"

#include <algorithm>
#include <cstring>

#include "pjrt/args.h"

jft::pjrt::DeviceWorker& PJRT_Device::worker() {
  std::lock_guard<std::mutex> lock(worker_mutex_);
  if (worker_ == nullptr) worker_ = std::make_unique<jft::pjrt::DeviceWorker>();
  return *worker_;
}

namespace jft::pjrt {

void describeDevice(int id, int process_index, const runtime::DeviceInfo& info,
                    PJRT_DeviceDescription& out) {
  out.id = id;
  out.process_index = process_index;
  out.kind = info.name;
  out.to_string = "CudaDevice(id=" + std::to_string(id) + ")";
  out.debug_string = "cuda:" + std::to_string(id);
  out.attributes.addString(
      "compute_capability",
      std::to_string(info.compute_major) + "." + std::to_string(info.compute_minor));
  out.attributes.addInt64("core_count", info.core_count);
  out.attributes.addString("device_vendor", info.vendor);
  out.attributes.addString("pci_bus_id", info.pci_bus_id);
}

Status requireAddressable(const PJRT_Device& device, const char* function) {
  if (device.addressable()) return Status::ok();
  return failedPrecondition(
      std::string(function) + ": device " + std::to_string(device.description.id) +
      " belongs to process " + std::to_string(device.description.process_index) +
      " and is not addressable from this one");
}

#define JFT_DESCRIPTION_ENTRY(Function, Name, lastField, ...)                        \
  JFT_PJRT_OBJECT_ENTRY(Function, Name, lastField, device_description,               \
                        const PJRT_DeviceDescription& d = *args->device_description, \
                        __VA_ARGS__)

JFT_DESCRIPTION_ENTRY(deviceDescriptionId, DeviceDescription_Id, id, args->id = d.id)
JFT_DESCRIPTION_ENTRY(deviceDescriptionProcessIndex, DeviceDescription_ProcessIndex,
                      process_index, args->process_index = d.process_index)
JFT_DESCRIPTION_ENTRY(deviceDescriptionAttributes, DeviceDescription_Attributes,
                      attributes,
                      setView(args->attributes, args->num_attributes, d.attributes))
JFT_DESCRIPTION_ENTRY(deviceDescriptionKind, DeviceDescription_Kind, device_kind_size,
                      setView(args->device_kind, args->device_kind_size, d.kind))
JFT_DESCRIPTION_ENTRY(deviceDescriptionDebugString, DeviceDescription_DebugString,
                      debug_string_size,
                      setView(args->debug_string, args->debug_string_size,
                              d.debug_string))
JFT_DESCRIPTION_ENTRY(deviceDescriptionToString, DeviceDescription_ToString,
                      to_string_size,
                      setView(args->to_string, args->to_string_size, d.to_string))
#undef JFT_DESCRIPTION_ENTRY

#define JFT_DEVICE_ENTRY(Function, Name, lastField, ...)   \
  JFT_PJRT_OBJECT_ENTRY(Function, Name, lastField, device, \
                        PJRT_Device& device = *args->device, __VA_ARGS__)

JFT_DEVICE_ENTRY(deviceGetDescription, Device_GetDescription, device_description,
                 args->device_description = &device.description)
JFT_DEVICE_ENTRY(deviceIsAddressable, Device_IsAddressable, is_addressable,
                 args->is_addressable = device.addressable())
JFT_DEVICE_ENTRY(deviceLocalHardwareId, Device_LocalHardwareId, local_hardware_id,
                 args->local_hardware_id = device.local_hardware_id)
JFT_DEVICE_ENTRY(deviceAddressableMemories, Device_AddressableMemories, num_memories,
                 setView(args->memories, args->num_memories, device.memories))
JFT_DEVICE_ENTRY(deviceDefaultMemory, Device_DefaultMemory, memory, {
  JFT_RETURN_IF_ERROR(requireAddressable(device, kName));
  args->memory = device.default_memory;
})
JFT_DEVICE_ENTRY(deviceClearMemoryStats, Device_ClearMemoryStats, device, {
  JFT_RETURN_IF_ERROR(requireAddressable(device, kName));
  device.runtime->resetPeakMemory();
})
JFT_DEVICE_ENTRY(deviceGetAttributes, Device_GetAttributes, attributes_deleter, {
  setView(args->attributes, args->num_attributes, device.description.attributes);
  // The attributes live as long as the device, so there is nothing to delete.
  args->device_attributes = nullptr;
  args->attributes_deleter = [](PJRT_Device_Attributes*) {};
})

// Older callers know fewer statistics; only bytes_in_use is mandatory.
JFT_DEVICE_ENTRY(deviceMemoryStats, Device_MemoryStats, bytes_in_use, {
  // Every output the caller knows about is written, the optional ones marked
  // unset unless we have them: stale memory must never read as a statistic.
  JFT_RETURN_IF_ERROR(requireAddressable(device, kName));
  using A = PJRT_Device_MemoryStats_Args;
  const size_t known = std::min(args->struct_size, sizeof(A));
  auto* outputs = reinterpret_cast<unsigned char*>(&args->bytes_in_use);
  std::memset(outputs, 0, known - offsetof(A, bytes_in_use));
  runtime::MemoryStats stats = device.runtime->memoryStats();
  args->bytes_in_use = stats.bytes_in_use;
  auto set = [&](size_t endOfField, int64_t& field, bool& isSet, int64_t value) {
    if (known < endOfField) return;
    field = value;
    isSet = true;
  };
  set(JFT_ABI_SIZE_UP_TO(A, peak_bytes_in_use_is_set), args->peak_bytes_in_use,
      args->peak_bytes_in_use_is_set, stats.peak_bytes_in_use);
  set(JFT_ABI_SIZE_UP_TO(A, num_allocs_is_set), args->num_allocs, args->num_allocs_is_set,
      stats.num_allocs);
  set(JFT_ABI_SIZE_UP_TO(A, largest_alloc_size_is_set), args->largest_alloc_size,
      args->largest_alloc_size_is_set, stats.largest_alloc);
  set(JFT_ABI_SIZE_UP_TO(A, bytes_limit_is_set), args->bytes_limit,
      args->bytes_limit_is_set, stats.bytes_limit);
  if (stats.pool_bytes >= 0) {
    set(JFT_ABI_SIZE_UP_TO(A, pool_bytes_is_set), args->pool_bytes,
        args->pool_bytes_is_set, stats.pool_bytes);
    set(JFT_ABI_SIZE_UP_TO(A, peak_pool_bytes_is_set), args->peak_pool_bytes,
        args->peak_pool_bytes_is_set, stats.peak_pool_bytes);
  }
  // peak_allocated_bytes (0.113) is upstream's peak over reserved and in-use
  // bytes together; we track no reservations, so it stays unset like
  // bytes_reserved.
})
#undef JFT_DEVICE_ENTRY

}  // namespace jft::pjrt
