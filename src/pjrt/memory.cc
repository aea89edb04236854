// Memory entry points and the memory function table.
#include "pjrt/memory.h"

#include "pjrt/args.h"
#include "pjrt/entry_points.h"

namespace jft::pjrt {
namespace {

void* getUserData(PJRT_Memory* memory, const void* key) {
  MemorySpace* space = unwrap(memory);
  std::lock_guard<std::mutex> lock(space->user_data_mutex);
  auto it = space->user_data.find(key);
  return it == space->user_data.end() ? nullptr : it->second.first;
}

void setUserData(PJRT_Memory* memory, const void* key, void* data, void (*dtor)(void*)) {
  MemorySpace* space = unwrap(memory);
  std::pair<void*, void (*)(void*)> previous{nullptr, nullptr};
  {
    std::lock_guard<std::mutex> lock(space->user_data_mutex);
    auto& slot = space->user_data[key];
    previous = slot;
    slot = {data, dtor};
  }
  if (previous.first != nullptr && previous.second != nullptr && previous.first != data)
    previous.second(previous.first);
}

constexpr PJRT_Memory_FunctionTable kMemoryTable = {
    sizeof(PJRT_Memory_FunctionTable),
    nullptr,
    sizeof(MemorySpace),
    &getUserData,
    &setUserData,
};

}  // namespace

MemorySpace::MemorySpace() : base{&kMemoryTable} {}

MemorySpace::~MemorySpace() {
  for (auto& [key, entry] : user_data) {
    if (entry.first != nullptr && entry.second != nullptr) entry.second(entry.first);
  }
}

#define JFT_MEMORY_ENTRY(Function, Name, lastField, ...)   \
  JFT_PJRT_OBJECT_ENTRY(Function, Name, lastField, memory, \
                        const MemorySpace& memory = *unwrap(args->memory), __VA_ARGS__)

JFT_MEMORY_ENTRY(memoryId, Memory_Id, id, args->id = memory.id)
JFT_MEMORY_ENTRY(memoryKind, Memory_Kind, kind_size,
                 setView(args->kind, args->kind_size, memory.kind))
JFT_MEMORY_ENTRY(memoryKindId, Memory_Kind_Id, kind_id, args->kind_id = memory.kind_id)
JFT_MEMORY_ENTRY(memoryDebugString, Memory_DebugString, debug_string_size,
                 setView(args->debug_string, args->debug_string_size,
                         memory.debug_string))
JFT_MEMORY_ENTRY(memoryToString, Memory_ToString, to_string_size,
                 setView(args->to_string, args->to_string_size, memory.to_string))
JFT_MEMORY_ENTRY(memoryAddressableByDevices, Memory_AddressableByDevices, num_devices,
                 setView(args->devices, args->num_devices, memory.devices))
#undef JFT_MEMORY_ENTRY

}  // namespace jft::pjrt
