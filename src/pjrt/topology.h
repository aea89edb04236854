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
