// PJRT_AsyncHostToDeviceTransferManager: buffers allocated up front and
// filled later by raw chunks (TransferData, any order, any size) or whole
// (TransferLiteral). A buffer is `incomplete` until its last transfer (or an
// error) is given; then its ready event completes when every chunk copy has.
// The manager owns the buffers it has not handed out (RetrieveBuffer, once
// each); Destroy frees those and fails the ready event of any buffer whose
// last transfer never came, so nobody waits forever. Until its last transfer
// the manager holds an external reference on each buffer, so a caller's early
// Destroy defers the free rather than leaving the slot dangling.
#pragma once

#include <mutex>
#include <vector>

#include "pjrt/abi_buffers.h"
#include "pjrt/buffer.h"

struct PJRT_AsyncHostToDeviceTransferManager {
  struct Slot {
    PJRT_Buffer* buffer = nullptr;
    bool retrieved = false;
    bool finished = false;  // the last transfer or an error was given
    std::vector<jft::runtime::EventPtr> copies;
  };
  PJRT_Client* client = nullptr;
  PJRT_Device* device = nullptr;
  PJRT_Memory* memory = nullptr;
  std::mutex mutex;
  std::vector<Slot> slots;

  ~PJRT_AsyncHostToDeviceTransferManager();
};
