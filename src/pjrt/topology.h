// PJRT_TopologyDescription: the client's devices, seen without a client.
// The client owns its topology; destroying it through the API is a no-op.
#pragma once

#include <string>
#include <vector>

#include "pjrt/abi.h"
#include "pjrt/named_values.h"

struct PJRT_TopologyDescription {
  PJRT_Client* owner = nullptr;
  std::string platform_name;
  std::string platform_version;
  std::vector<PJRT_DeviceDescription*> descriptions;
  jft::pjrt::NamedValues attributes;
};

namespace jft::pjrt {

PJRT_Error* topologyDestroy(PJRT_TopologyDescription_Destroy_Args* args);
PJRT_Error* topologyPlatformName(PJRT_TopologyDescription_PlatformName_Args* args);
PJRT_Error* topologyPlatformVersion(PJRT_TopologyDescription_PlatformVersion_Args* args);
PJRT_Error* topologyGetDeviceDescriptions(
    PJRT_TopologyDescription_GetDeviceDescriptions_Args* args);
PJRT_Error* topologyAttributes(PJRT_TopologyDescription_Attributes_Args* args);

}  // namespace jft::pjrt
