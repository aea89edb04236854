// PJRT_Device and PJRT_DeviceDescription: one GPU of the client.
//
// Ids are global and dense: with several processes (jax.distributed), a
// device's id is its index in its process plus the device counts of the
// processes with lower indices; in one process, 0..n-1. The local hardware id
// is the driver's ordinal (in the device's own process). Devices of other
// processes are not addressable: they have no runtime device and no memories,
// and entry points that need one refuse them. Attributes carry only strings and
// integers: compute_capability ("9.0"), core_count, device_vendor, pci_bus_id.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "pjrt/abi.h"
#include "pjrt/device_worker.h"
#include "pjrt/named_values.h"
#include "runtime/device.h"

struct PJRT_DeviceDescription {
  int id = 0;
  int process_index = 0;
  std::string kind;
  std::string debug_string;
  std::string to_string;
  jft::pjrt::NamedValues attributes;
};

struct PJRT_Device {
  PJRT_Client* client = nullptr;
  // Null for a device of another process.
  jft::runtime::Device* runtime = nullptr;
  PJRT_DeviceDescription description;
  int local_hardware_id = 0;
  std::vector<PJRT_Memory*> memories;
  PJRT_Memory* default_memory = nullptr;

  bool addressable() const { return runtime != nullptr; }
  // The thread this device's part of a program over several participants is
  // enqueued from (device_worker.h), started on first use.
  jft::pjrt::DeviceWorker& worker();

 private:
  std::mutex worker_mutex_;
  std::unique_ptr<jft::pjrt::DeviceWorker> worker_;
};

namespace jft::pjrt {

// Fills the description from the runtime's view of the device.
void describeDevice(int id, int process_index, const runtime::DeviceInfo& info,
                    PJRT_DeviceDescription& out);

// OK for an addressable device, else FAILED_PRECONDITION naming the device,
// its process and `function`.
Status requireAddressable(const PJRT_Device& device, const char* function);

}  // namespace jft::pjrt
