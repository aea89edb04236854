// PJRT_LoadedExecutable: what a successful compile will hand back. Today no
// compile succeeds, but the calls JAX treats as fatal after a compile (the
// device assignment, since API 0.79) are implemented against this wrapper so
// the compiler route only has to fill it in.
#pragma once

#include <string>
#include <vector>

#include "pjrt/abi.h"
#include "support/status.h"

struct PJRT_LoadedExecutable {
  PJRT_Client* client = nullptr;
  int numReplicas = 1;
  int numPartitions = 1;
  // Device id of (replica r, partition p) at r * numPartitions + p.
  std::vector<int> deviceIds;
};

namespace jft::pjrt {

// Serialized xla.DeviceAssignmentProto: replica_count (1), computation_count (2),
// computation_devices (3) each holding replica_device_ids (1, packed int64).
StatusOr<std::string> serializeDeviceAssignment(int replicas, int partitions,
                                                const std::vector<int>& deviceIds);

PJRT_Error* loadedExecutableGetDeviceAssignment(
    PJRT_LoadedExecutable_GetDeviceAssignment_Args* args);

}  // namespace jft::pjrt
