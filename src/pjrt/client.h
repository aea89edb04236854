// PJRT_Client: the plugin's view of one process's GPUs.
//
// Owns the runtime platform, a PJRT_Device and a MemorySpace per GPU, the
// topology, and the compile dump settings read from XLA_FLAGS at creation.
// Member order matters: the platform is destroyed last, after everything that
// points into it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "pjrt/abi.h"
#include "pjrt/compile_dump.h"
#include "pjrt/create_options.h"
#include "pjrt/device.h"
#include "pjrt/memory.h"
#include "pjrt/topology.h"
#include "runtime/device.h"

struct PJRT_Client {
  std::unique_ptr<jft::runtime::Platform> platform;
  jft::pjrt::ClientOptions options;
  std::string platformName;
  std::string platformVersion;
  std::vector<std::unique_ptr<PJRT_Device>> deviceStorage;
  std::vector<PJRT_Device*> devices;
  std::vector<std::unique_ptr<jft::pjrt::MemorySpace>> memoryStorage;
  std::vector<PJRT_Memory*> memories;
  std::unique_ptr<PJRT_TopologyDescription> topology;
  std::unique_ptr<jft::pjrt::CompileDump> dump;

  bool ownsDevice(const PJRT_Device* device) const;
  bool ownsMemory(const PJRT_Memory* memory) const;
};

namespace jft::pjrt {

// Builds a client over an opened platform (split out so tests can use a fake).
std::unique_ptr<PJRT_Client> makeClient(std::unique_ptr<runtime::Platform> platform,
                                        ClientOptions options, std::string dumpDirectory);

PJRT_Error* clientCreate(PJRT_Client_Create_Args* args);
PJRT_Error* clientDestroy(PJRT_Client_Destroy_Args* args);
PJRT_Error* clientPlatformName(PJRT_Client_PlatformName_Args* args);
PJRT_Error* clientProcessIndex(PJRT_Client_ProcessIndex_Args* args);
PJRT_Error* clientPlatformVersion(PJRT_Client_PlatformVersion_Args* args);
PJRT_Error* clientDevices(PJRT_Client_Devices_Args* args);
PJRT_Error* clientAddressableDevices(PJRT_Client_AddressableDevices_Args* args);
PJRT_Error* clientLookupDevice(PJRT_Client_LookupDevice_Args* args);
PJRT_Error* clientLookupAddressableDevice(PJRT_Client_LookupAddressableDevice_Args* args);
PJRT_Error* clientAddressableMemories(PJRT_Client_AddressableMemories_Args* args);
PJRT_Error* clientDefaultDeviceAssignment(PJRT_Client_DefaultDeviceAssignment_Args* args);
PJRT_Error* clientTopologyDescription(PJRT_Client_TopologyDescription_Args* args);

}  // namespace jft::pjrt
