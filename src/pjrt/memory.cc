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

PJRT_Error* memoryId(PJRT_Memory_Id_Args* args) {
  return boundary("PJRT_Memory_Id", [&]() -> Status {
    JFT_RETURN_IF_ERROR(
        checkArgs(args, JFT_PJRT_SIZE_UP_TO(PJRT_Memory_Id_Args, id), "PJRT_Memory_Id"));
    JFT_RETURN_IF_ERROR(requireNonNull(args->memory, "memory", "PJRT_Memory_Id"));
    args->id = unwrap(args->memory)->id;
    return Status::ok();
  });
}

PJRT_Error* memoryKind(PJRT_Memory_Kind_Args* args) {
  return boundary("PJRT_Memory_Kind", [&]() -> Status {
    JFT_RETURN_IF_ERROR(checkArgs(
        args, JFT_PJRT_SIZE_UP_TO(PJRT_Memory_Kind_Args, kind_size), "PJRT_Memory_Kind"));
    JFT_RETURN_IF_ERROR(requireNonNull(args->memory, "memory", "PJRT_Memory_Kind"));
    const std::string& kind = unwrap(args->memory)->kind;
    args->kind = kind.c_str();
    args->kind_size = kind.size();
    return Status::ok();
  });
}

PJRT_Error* memoryKindId(PJRT_Memory_Kind_Id_Args* args) {
  return boundary("PJRT_Memory_Kind_Id", [&]() -> Status {
    JFT_RETURN_IF_ERROR(checkArgs(args,
                                  JFT_PJRT_SIZE_UP_TO(PJRT_Memory_Kind_Id_Args, kind_id),
                                  "PJRT_Memory_Kind_Id"));
    JFT_RETURN_IF_ERROR(requireNonNull(args->memory, "memory", "PJRT_Memory_Kind_Id"));
    args->kind_id = unwrap(args->memory)->kind_id;
    return Status::ok();
  });
}

PJRT_Error* memoryDebugString(PJRT_Memory_DebugString_Args* args) {
  return boundary("PJRT_Memory_DebugString", [&]() -> Status {
    JFT_RETURN_IF_ERROR(checkArgs(
        args, JFT_PJRT_SIZE_UP_TO(PJRT_Memory_DebugString_Args, debug_string_size),
        "PJRT_Memory_DebugString"));
    JFT_RETURN_IF_ERROR(
        requireNonNull(args->memory, "memory", "PJRT_Memory_DebugString"));
    const std::string& text = unwrap(args->memory)->debug_string;
    args->debug_string = text.c_str();
    args->debug_string_size = text.size();
    return Status::ok();
  });
}

PJRT_Error* memoryToString(PJRT_Memory_ToString_Args* args) {
  return boundary("PJRT_Memory_ToString", [&]() -> Status {
    JFT_RETURN_IF_ERROR(
        checkArgs(args, JFT_PJRT_SIZE_UP_TO(PJRT_Memory_ToString_Args, to_string_size),
                  "PJRT_Memory_ToString"));
    JFT_RETURN_IF_ERROR(requireNonNull(args->memory, "memory", "PJRT_Memory_ToString"));
    const std::string& text = unwrap(args->memory)->to_string;
    args->to_string = text.c_str();
    args->to_string_size = text.size();
    return Status::ok();
  });
}

PJRT_Error* memoryAddressableByDevices(PJRT_Memory_AddressableByDevices_Args* args) {
  return boundary("PJRT_Memory_AddressableByDevices", [&]() -> Status {
    JFT_RETURN_IF_ERROR(checkArgs(
        args, JFT_PJRT_SIZE_UP_TO(PJRT_Memory_AddressableByDevices_Args, num_devices),
        "PJRT_Memory_AddressableByDevices"));
    JFT_RETURN_IF_ERROR(
        requireNonNull(args->memory, "memory", "PJRT_Memory_AddressableByDevices"));
    const auto& devices = unwrap(args->memory)->devices;
    args->devices = devices.data();
    args->num_devices = devices.size();
    return Status::ok();
  });
}

}  // namespace jft::pjrt
