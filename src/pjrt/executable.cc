// Loaded-executable lifetime, placement and the device assignment encoding.
#include "pjrt/executable.h"

#include <cstdint>

#include "pjrt/args.h"
#include "pjrt/client.h"
#include "pjrt/device.h"

jft::StatusOr<std::shared_ptr<jft::pjrt::DeviceProgram>>
PJRT_LoadedExecutable::programFor(PJRT_Device* device) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (deleted_)
    return jft::failedPrecondition("the executable " + info->name + " has been deleted");
  auto found = programs_.find(device);
  if (found != programs_.end()) return found->second;
  if (!loader)
    return jft::internalError("the executable " + info->name + " has no loader");
  JFT_ASSIGN_OR_RETURN(std::unique_ptr<jft::pjrt::DeviceProgram> loaded,
                       loader(*device->runtime, info->program));
  std::shared_ptr<jft::pjrt::DeviceProgram> shared = std::move(loaded);
  programs_.emplace(device, shared);
  return shared;
}

void PJRT_LoadedExecutable::markDeleted() {
  std::map<PJRT_Device*, std::shared_ptr<jft::pjrt::DeviceProgram>> dropped;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    deleted_ = true;
    dropped.swap(programs_);
  }
}

bool PJRT_LoadedExecutable::isDeleted() {
  std::lock_guard<std::mutex> lock(mutex_);
  return deleted_;
}

namespace jft::pjrt {
namespace {

void appendVarint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

void appendTag(std::string& out, int field, int wireType) {
  appendVarint(out, static_cast<uint64_t>(field) << 3 | static_cast<uint64_t>(wireType));
}

constexpr int kVarint = 0;
constexpr int kLengthDelimited = 2;

}  // namespace

StatusOr<PJRT_Device*> placeProgram(PJRT_Client& client, const CompileOptions& options) {
  const int64_t devices =
      options.numReplicas * static_cast<int64_t>(options.numPartitions);
  if (devices > 1)
    return unimplemented(
        "jax-flagtree runs a program on one device per process for now; this one asks "
        "for " +
        std::to_string(options.numReplicas) + " replicas x " +
        std::to_string(options.numPartitions) + " partitions (" +
        std::to_string(devices) +
        " devices), which needs the collective route over several GPUs (NCCL), not "
        "built yet");
  if (options.deviceOrdinal < -1)
    return invalidArgument("device_ordinal " + std::to_string(options.deviceOrdinal) +
                           " is negative (-1 means any device)");
  if (client.devices.empty()) return failedPrecondition("the client has no devices");
  if (options.portable) return client.devices.front();
  if (!options.deviceAssignment.empty()) {
    int64_t id = options.deviceAssignment.front();
    for (PJRT_Device* device : client.devices) {
      if (device->description.id == id) return device;
    }
    return invalidArgument("the device assignment names device " + std::to_string(id) +
                           ", which this client does not have");
  }
  if (options.deviceOrdinal >= 0) {
    for (PJRT_Device* device : client.devices) {
      if (device->localHardwareId == options.deviceOrdinal) return device;
    }
    return invalidArgument("device_ordinal " + std::to_string(options.deviceOrdinal) +
                           " is not a device of this client");
  }
  return client.devices.front();
}

StatusOr<std::unique_ptr<PJRT_LoadedExecutable>> loadExecutable(
    PJRT_Client& client, std::shared_ptr<const ExecutableInfo> info,
    const CompileOptions& options, ProgramLoader loader) {
  if (info == nullptr) return internalError("loadExecutable: no executable info");
  auto executable = std::make_unique<PJRT_LoadedExecutable>();
  executable->client = &client;
  executable->info = std::move(info);
  executable->loader = std::move(loader);
  JFT_ASSIGN_OR_RETURN(PJRT_Device * device, placeProgram(client, options));
  if (options.portable) {
    executable->portable = true;
    return executable;
  }
  executable->deviceIds = {device->description.id};
  executable->addressableDevices = {device};
  executable->logicalIds = {PJRT_LogicalDeviceIds{0, 0}};
  // Loading now reports a bad program at compile time, not at the first call.
  JFT_RETURN_IF_ERROR(executable->programFor(device).status().withContext(
      "loading " + executable->info->name + " on device " +
      std::to_string(device->description.id)));
  return executable;
}

StatusOr<std::string> serializeDeviceAssignment(int replicas, int partitions,
                                                const std::vector<int>& deviceIds) {
  if (replicas < 1 || partitions < 1 ||
      deviceIds.size() != static_cast<size_t>(replicas) * static_cast<size_t>(partitions))
    return invalidArgument("device assignment of " + std::to_string(deviceIds.size()) +
                           " ids does not match " + std::to_string(replicas) +
                           " replicas x " + std::to_string(partitions) + " partitions");
  std::string out;
  appendTag(out, 1, kVarint);
  appendVarint(out, static_cast<uint64_t>(replicas));
  appendTag(out, 2, kVarint);
  appendVarint(out, static_cast<uint64_t>(partitions));
  for (int partition = 0; partition < partitions; ++partition) {
    std::string ids;
    for (int replica = 0; replica < replicas; ++replica) {
      int id = deviceIds[static_cast<size_t>(replica) * partitions + partition];
      // int64 varints encode negative values in ten bytes, as protobuf does.
      appendVarint(ids, static_cast<uint64_t>(static_cast<int64_t>(id)));
    }
    std::string computation;
    appendTag(computation, 1, kLengthDelimited);
    appendVarint(computation, ids.size());
    computation += ids;
    appendTag(out, 3, kLengthDelimited);
    appendVarint(out, computation.size());
    out += computation;
  }
  return out;
}

PJRT_Error* loadedExecutableGetDeviceAssignment(
    PJRT_LoadedExecutable_GetDeviceAssignment_Args* args) {
  constexpr const char* kName = "PJRT_LoadedExecutable_GetDeviceAssignment";
  return boundary(kName, [&]() -> Status {
    JFT_RETURN_IF_ERROR(
        checkArgs(args,
                  JFT_PJRT_SIZE_UP_TO(PJRT_LoadedExecutable_GetDeviceAssignment_Args,
                                      serialized_device_assignment_deleter),
                  kName));
    JFT_RETURN_IF_ERROR(requireNonNull(args->executable, "executable", kName));
    const PJRT_LoadedExecutable& executable = *args->executable;
    // The framework calls the deleter whatever it gets, so it is never null.
    args->serialized_device_assignment = nullptr;
    args->serialized_device_assignment_deleter = [](PJRT_DeviceAssignmentSerialized* da) {
      delete reinterpret_cast<std::string*>(da);
    };
    if (executable.portable) {
      // No bytes: "portable, no device assignment" to the framework.
      args->serialized_bytes = nullptr;
      args->serialized_bytes_size = 0;
      return Status::ok();
    }
    JFT_ASSIGN_OR_RETURN(
        std::string bytes,
        serializeDeviceAssignment(executable.numReplicas, executable.numPartitions,
                                  executable.deviceIds));
    auto* owned = new std::string(std::move(bytes));
    args->serialized_bytes = owned->data();
    args->serialized_bytes_size = owned->size();
    args->serialized_device_assignment =
        reinterpret_cast<PJRT_DeviceAssignmentSerialized*>(owned);
    return Status::ok();
  });
}

}  // namespace jft::pjrt
