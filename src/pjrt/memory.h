// MemorySpace: our PJRT_Memory. Each device has two: its own device memory
// (kind "device", the default) and page-locked host memory it reaches by DMA
// (kind "pinned_host").
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "pjrt/abi.h"

struct PJRT_Device;

namespace jft::pjrt {

struct MemorySpace {
  PJRT_Memory base;  // must stay first: the framework sees only this
  int id = 0;
  int kind_id = 0;
  bool pinned_host = false;
  std::string kind;
  std::string debug_string;
  std::string to_string;
  std::vector<PJRT_Device*> devices;

  MemorySpace();
  ~MemorySpace();
  MemorySpace(const MemorySpace&) = delete;
  MemorySpace& operator=(const MemorySpace&) = delete;

  // Framework-attached data (0.105 memory function table).
  std::mutex user_data_mutex;
  std::map<const void*, std::pair<void*, void (*)(void*)>> user_data;
};

inline MemorySpace* unwrap(PJRT_Memory* memory) {
  return reinterpret_cast<MemorySpace*>(memory);
}
inline PJRT_Memory* wrap(MemorySpace* memory) {
  return &memory->base;
}

PJRT_Error* memoryId(PJRT_Memory_Id_Args* args);
PJRT_Error* memoryKind(PJRT_Memory_Kind_Args* args);
PJRT_Error* memoryKindId(PJRT_Memory_Kind_Id_Args* args);
PJRT_Error* memoryDebugString(PJRT_Memory_DebugString_Args* args);
PJRT_Error* memoryToString(PJRT_Memory_ToString_Args* args);
PJRT_Error* memoryAddressableByDevices(PJRT_Memory_AddressableByDevices_Args* args);

}  // namespace jft::pjrt
