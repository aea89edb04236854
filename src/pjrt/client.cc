// Client creation, destruction and queries.
#include "pjrt/client.h"

#include <algorithm>
#include <cstdio>

#include "pjrt/args.h"
#include "pjrt/entry_points.h"
#include "pjrt/kv_clique_ids.h"

bool PJRT_Client::ownsDevice(const PJRT_Device* device) const {
  return std::find(devices.begin(), devices.end(), device) != devices.end();
}

bool PJRT_Client::ownsMemory(const PJRT_Memory* memory) const {
  return std::find(memories.begin(), memories.end(), memory) != memories.end();
}

PJRT_Device* PJRT_Client::deviceWithId(int64_t id) const {
  for (PJRT_Device* device : all_devices) {
    if (device->description.id == id) return device;
  }
  return nullptr;
}

namespace jft::pjrt {

namespace {

// This process's device `i`: a runtime device, its memories and description.
void addLocalDevice(PJRT_Client& client, runtime::Platform& platform, int i,
                    int globalId) {
  runtime::Device& runtimeDevice = platform.device(i);
  auto device = std::make_unique<PJRT_Device>();
  device->client = &client;
  device->runtime = &runtimeDevice;
  device->local_hardware_id = runtimeDevice.info().ordinal;
  describeDevice(globalId, client.process_index, runtimeDevice.info(),
                 device->description);

  auto memory = std::make_unique<MemorySpace>();
  memory->id = i;
  memory->kind_id = 0;
  memory->kind = "device";
  memory->debug_string = "DeviceMemory(device=" + std::to_string(globalId) + ")";
  memory->to_string = "MEMORY_SPACE_" + std::to_string(i);
  memory->devices.push_back(device.get());
  auto pinned = std::make_unique<MemorySpace>();
  pinned->id = platform.deviceCount() + i;
  pinned->kind_id = 1;
  pinned->pinned_host = true;
  pinned->kind = "pinned_host";
  pinned->debug_string = "PinnedHostMemory(device=" + std::to_string(globalId) + ")";
  pinned->to_string = "PINNED_HOST_MEMORY_SPACE_" + std::to_string(i);
  pinned->devices.push_back(device.get());
  device->memories.push_back(wrap(memory.get()));
  device->memories.push_back(wrap(pinned.get()));
  device->default_memory = wrap(memory.get());
  client.memories.push_back(wrap(memory.get()));
  client.memories.push_back(wrap(pinned.get()));
  client.memory_storage.push_back(std::move(memory));
  client.memory_storage.push_back(std::move(pinned));

  client.devices.push_back(device.get());
  client.all_devices.push_back(device.get());
  client.device_storage.push_back(std::move(device));
}

// A device of another process: a description only.
void addRemoteDevice(PJRT_Client& client, int process, const runtime::DeviceInfo& info,
                     int globalId) {
  auto device = std::make_unique<PJRT_Device>();
  device->client = &client;
  device->local_hardware_id = info.ordinal;
  describeDevice(globalId, process, info, device->description);
  client.all_devices.push_back(device.get());
  client.device_storage.push_back(std::move(device));
}

}  // namespace

std::unique_ptr<PJRT_Client> makeClient(std::unique_ptr<runtime::Platform> platform,
                                        ClientOptions options, std::string dumpDirectory,
                                        const ProcessLayout& layout) {
  auto client = std::make_unique<PJRT_Client>();
  client->platform_name = platform->name();
  client->platform_version = platform->version();
  client->options = std::move(options);
  client->kernel_workers = std::make_unique<compiler::KernelWorkers>(
      kernelWorkerSettings(client->options, dumpDirectory));
  client->dump = std::make_unique<CompileDump>(std::move(dumpDirectory));
  const bool alone = layout.devices_per_process.empty();
  client->process_index = alone ? 0 : layout.process_index;
  client->process_count = alone ? 1 : static_cast<int>(layout.devices_per_process.size());
  int globalId = 0;
  for (int process = 0; process < client->process_count; ++process) {
    if (process == client->process_index) {
      for (int i = 0; i < platform->deviceCount(); ++i)
        addLocalDevice(*client, *platform, i, globalId++);
      continue;
    }
    for (const runtime::DeviceInfo& info :
         layout.devices_per_process[static_cast<size_t>(process)])
      addRemoteDevice(*client, process, info, globalId++);
  }
  auto topology = std::make_unique<PJRT_TopologyDescription>();
  topology->owner = client.get();
  topology->platform_name = client->platform_name;
  topology->platform_version = client->platform_version;
  for (PJRT_Device* device : client->all_devices) {
    topology->descriptions.push_back(&device->description);
  }
  client->topology = std::move(topology);
  client->platform = std::move(platform);
  return client;
}

StatusOr<std::unique_ptr<PJRT_Client>> assembleClient(
    std::unique_ptr<runtime::Platform> platform, ClientOptions options,
    compiler::Options compiler_options, std::shared_ptr<KvStore> store) {
  ProcessLayout layout;
  if (options.num_nodes > 1) {
    if (store == nullptr)
      return failedPrecondition(
          "jax-flagtree cannot join a job of " + std::to_string(options.num_nodes) +
          " processes: PJRT_Client_Create got no key-value store callbacks "
          "(jax.distributed.initialize must run before the first JAX call)");
    std::vector<runtime::DeviceInfo> local;
    for (int i = 0; i < platform->deviceCount(); ++i)
      local.push_back(platform->device(i).info());
    JFT_ASSIGN_OR_RETURN(
        layout, exchangeDevices(*store, options.node_id, options.num_nodes, local,
                                kDeviceExchangeTimeout));
    platform->setCliqueIdExchange(std::make_shared<KvCliqueIdExchange>(store));
  }
  std::string dumpDirectory = compiler_options.dump_dir;
  std::unique_ptr<PJRT_Client> client = makeClient(
      std::move(platform), std::move(options), std::move(dumpDirectory), layout);
  // The workers start lazily, so replacing the default ones costs nothing.
  client->kernel_workers = std::make_unique<compiler::KernelWorkers>(kernelWorkerSettings(
      client->options, compiler_options.dump_dir, compiler_options.log));
  client->compiler_options = std::move(compiler_options);
  return client;
}

compiler::KernelWorkerSettings kernelWorkerSettings(const ClientOptions& options,
                                                    const std::string& dumpDirectory,
                                                    bool log) {
  compiler::KernelWorkerSettings settings;
  settings.python_executable = options.python_executable;
  settings.worker_module = options.worker_module;
  settings.dump_dir = dumpDirectory;
  settings.num_workers = options.compile_workers;
  settings.log = log;
  settings.compiler_fingerprint = options.compiler_fingerprint;
  settings.slow_compile_seconds =
      compiler::slowCompileSeconds(settings.slow_compile_seconds);
  return settings;
}

JFT_PJRT_ENTRY(clientDestroy, Client_Destroy, client, { delete args->client; })

#define JFT_CLIENT_ENTRY(Function, Name, lastField, ...)   \
  JFT_PJRT_OBJECT_ENTRY(Function, Name, lastField, client, \
                        PJRT_Client& client = *args->client, __VA_ARGS__)

JFT_CLIENT_ENTRY(clientPlatformName, Client_PlatformName, platform_name_size,
                 setView(args->platform_name, args->platform_name_size,
                         client.platform_name))
JFT_CLIENT_ENTRY(clientProcessIndex, Client_ProcessIndex, process_index,
                 args->process_index = client.process_index)
JFT_CLIENT_ENTRY(clientPlatformVersion, Client_PlatformVersion, platform_version_size,
                 setView(args->platform_version, args->platform_version_size,
                         client.platform_version))
JFT_CLIENT_ENTRY(clientDevices, Client_Devices, num_devices,
                 setView(args->devices, args->num_devices, client.all_devices))
JFT_CLIENT_ENTRY(clientAddressableDevices, Client_AddressableDevices,
                 num_addressable_devices,
                 setView(args->addressable_devices, args->num_addressable_devices,
                         client.devices))
JFT_CLIENT_ENTRY(clientAddressableMemories, Client_AddressableMemories,
                 num_addressable_memories,
                 setView(args->addressable_memories, args->num_addressable_memories,
                         client.memories))
JFT_CLIENT_ENTRY(clientTopologyDescription, Client_TopologyDescription, topology,
                 args->topology = client.topology.get())
JFT_CLIENT_ENTRY(clientLookupDevice, Client_LookupDevice, device, {
  args->device = client.deviceWithId(args->id);
  if (args->device == nullptr)
    return notFound("PJRT_Client_LookupDevice: no device with id " +
                    std::to_string(args->id));
})
JFT_CLIENT_ENTRY(clientLookupAddressableDevice, Client_LookupAddressableDevice,
                 addressable_device, {
                   args->addressable_device = nullptr;
                   for (PJRT_Device* device : client.devices) {
                     if (device->local_hardware_id == args->local_hardware_id)
                       args->addressable_device = device;
                   }
                   if (args->addressable_device == nullptr)
                     return notFound(
                         "PJRT_Client_LookupAddressableDevice: no device with local "
                         "hardware id " +
                         std::to_string(args->local_hardware_id));
                 })
JFT_CLIENT_ENTRY(
    clientDefaultDeviceAssignment, Client_DefaultDeviceAssignment, default_assignment, {
      if (args->num_replicas < 1 || args->num_partitions < 1)
        return invalidArgument(
            "PJRT_Client_DefaultDeviceAssignment: replicas and partitions "
            "must be positive");
      size_t needed = static_cast<size_t>(args->num_replicas) *
                      static_cast<size_t>(args->num_partitions);
      // Like XLA: the first devices of the whole job, in id order.
      if (needed > client.all_devices.size())
        return invalidArgument("PJRT_Client_DefaultDeviceAssignment: " +
                               std::to_string(needed) + " devices requested but only " +
                               std::to_string(client.all_devices.size()) + " exist");
      if (args->default_assignment_size < needed || args->default_assignment == nullptr)
        return invalidArgument(
            "PJRT_Client_DefaultDeviceAssignment: the output array is too "
            "small");
      for (size_t i = 0; i < needed; ++i)
        args->default_assignment[i] = client.all_devices[i]->description.id;
    })
#undef JFT_CLIENT_ENTRY

}  // namespace jft::pjrt
