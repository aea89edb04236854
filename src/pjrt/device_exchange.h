// How the processes of a jax.distributed job learn each other's devices.
//
// At client creation with num_nodes > 1 each process publishes the
// descriptions of its GPUs under "jax_flagtree/devices/<node_id>" in the
// job's key-value store and reads everyone else's. A device's global id is
// its index in its process plus the device counts of the lower node ids, so
// every process numbers every device the same way.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "pjrt/kv_store.h"
#include "runtime/device.h"
#include "support/status.h"

namespace jft::pjrt {

// Where this client sits in the job: every process's devices, by node id
// (their PJRT_DeviceDescriptions are made from these). One process: index 0
// and its own devices only.
struct ProcessLayout {
  int process_index = 0;
  std::vector<std::vector<runtime::DeviceInfo>> devices_per_process;
};

// One line per device: ordinal, compute capability, core count, warp size,
// memory, then name, vendor and PCI bus id hex-encoded; and back
// (INVALID_ARGUMENT for text that is not such a list).
std::string encodeDevices(const std::vector<runtime::DeviceInfo>& devices);
StatusOr<std::vector<runtime::DeviceInfo>> decodeDevices(const std::string& text);

// Publishes `local` for `node_id` and waits up to `timeout` for each other
// node's list. INVALID_ARGUMENT for a node id outside [0, num_nodes); the
// store's error naming the node that did not answer.
StatusOr<ProcessLayout> exchangeDevices(KvStore& store, int node_id, int num_nodes,
                                        const std::vector<runtime::DeviceInfo>& local,
                                        std::chrono::milliseconds timeout);

}  // namespace jft::pjrt
