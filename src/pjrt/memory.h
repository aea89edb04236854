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

}  // namespace jft::pjrt
