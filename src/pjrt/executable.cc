// Loaded-executable lifetime, placement and the device assignment encoding.
#include "pjrt/executable.h"

#include <algorithm>
#include <cstdint>

#include "pjrt/args.h"
#include "pjrt/client.h"
#include "pjrt/device.h"
#include "pjrt/entry_points.h"

jft::StatusOr<std::shared_ptr<jft::pjrt::DeviceProgram>>
PJRT_LoadedExecutable::programFor(PJRT_Device* device) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (deleted_)
    return jft::failedPrecondition("the executable " + info->name + " has been deleted");
  auto found = programs_.find(device);
  if (found != programs_.end()) return found->second;
  if (!loader)
    return jft::internalError("the executable " + info->name + " has no loader");
  if (!device->addressable())
    return jft::failedPrecondition(
        "the executable " + info->name + " cannot be loaded on device " +
        std::to_string(device->description.id) + ", which belongs to another process");
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

namespace {

// One participant: the assigned device, device_ordinal or the first device.
StatusOr<PJRT_Device*> placeOne(PJRT_Client& client, const CompileOptions& options) {
  if (options.device_ordinal < -1)
    return invalidArgument("device_ordinal " + std::to_string(options.device_ordinal) +
                           " is negative (-1 means any device)");
  if (options.portable) return client.devices.front();
  if (!options.device_assignment.empty()) {
    int64_t id = options.device_assignment.front();
    PJRT_Device* device = client.deviceWithId(id);
    if (device == nullptr)
      return invalidArgument("the device assignment names device " + std::to_string(id) +
                             ", which this client does not have");
    return device;
  }
  if (options.device_ordinal >= 0) {
    for (PJRT_Device* device : client.devices) {
      if (device->local_hardware_id == options.device_ordinal) return device;
    }
    return invalidArgument("device_ordinal " + std::to_string(options.device_ordinal) +
                           " is not a device of this client");
  }
  return client.devices.front();
}

}  // namespace

StatusOr<std::vector<PJRT_Device*>> placeProgram(PJRT_Client& client,
                                                 const CompileOptions& options) {
  if (options.num_replicas < 1 || options.num_partitions < 1)
    return invalidArgument(
        "a program needs at least one replica and one partition, not " +
        std::to_string(options.num_replicas) + " x " +
        std::to_string(options.num_partitions));
  if (client.devices.empty()) return failedPrecondition("the client has no devices");
  const int64_t count =
      options.num_replicas * static_cast<int64_t>(options.num_partitions);
  const std::string shape = std::to_string(options.num_replicas) + " replicas x " +
                            std::to_string(options.num_partitions) + " partitions";
  if (count == 1) {
    JFT_ASSIGN_OR_RETURN(PJRT_Device * device, placeOne(client, options));
    if (!device->addressable())
      return invalidArgument("the device assignment names device " +
                             std::to_string(device->description.id) + " of process " +
                             std::to_string(device->description.process_index) +
                             ", not one of this process's");
    return std::vector<PJRT_Device*>{device};
  }
  if (options.portable)
    return invalidArgument("a portable executable runs on one device, not " + shape);
  std::vector<PJRT_Device*> placed;
  if (!options.device_assignment.empty()) {
    if (static_cast<int64_t>(options.device_assignment.size()) != count)
      return invalidArgument("the device assignment lists " +
                             std::to_string(options.device_assignment.size()) +
                             " devices for " + shape);
    for (size_t i = 0; i < options.device_assignment.size(); ++i) {
      int64_t id = options.device_assignment[i];
      PJRT_Device* device = client.deviceWithId(id);
      const std::string who = "replica " + std::to_string(i / options.num_partitions) +
                              ", partition " + std::to_string(i % options.num_partitions);
      if (device == nullptr)
        return invalidArgument("the device assignment names device " +
                               std::to_string(id) + " for " + who +
                               ", which this client does not have");
      if (std::find(placed.begin(), placed.end(), device) != placed.end())
        return invalidArgument("the device assignment names device " +
                               std::to_string(id) + " twice (again for " + who + ")");
      placed.push_back(device);
    }
  } else {
    if (static_cast<int64_t>(client.all_devices.size()) < count)
      return invalidArgument(shape + " need " + std::to_string(count) +
                             " devices but the job has " +
                             std::to_string(client.all_devices.size()));
    // XLA's default assignment: the first devices in id order.
    std::vector<PJRT_Device*> byId = client.all_devices;
    std::sort(byId.begin(), byId.end(), [](const PJRT_Device* a, const PJRT_Device* b) {
      return a->description.id < b->description.id;
    });
    placed.assign(byId.begin(), byId.begin() + count);
  }
  if (std::none_of(placed.begin(), placed.end(),
                   [](const PJRT_Device* d) { return d->addressable(); }))
    return invalidArgument("none of the " + std::to_string(count) +
                           " devices of this program is this process's");
  return placed;
}

StatusOr<std::unique_ptr<PJRT_LoadedExecutable>> loadExecutable(
    PJRT_Client& client, std::shared_ptr<const ExecutableInfo> info,
    const CompileOptions& options, ProgramLoader loader) {
  if (info == nullptr) return internalError("loadExecutable: no executable info");
  auto executable = std::make_unique<PJRT_LoadedExecutable>();
  executable->client = &client;
  executable->info = std::move(info);
  executable->loader = std::move(loader);
  JFT_ASSIGN_OR_RETURN(std::vector<PJRT_Device*> placed, placeProgram(client, options));
  if (options.portable) {
    executable->portable = true;
    return executable;
  }
  executable->num_replicas = options.num_replicas;
  executable->num_partitions = options.num_partitions;
  executable->layout.replicas = options.num_replicas;
  executable->layout.partitions = options.num_partitions;
  for (size_t i = 0; i < placed.size(); ++i) {
    PJRT_Device* device = placed[i];
    executable->device_ids.push_back(device->description.id);
    executable->layout.device_ids.push_back(device->description.id);
    if (!device->addressable()) continue;
    executable->addressable_devices.push_back(device);
    executable->logical_ids.push_back(PJRT_LogicalDeviceIds{
        static_cast<int>(i / static_cast<size_t>(options.num_partitions)),
        static_cast<int>(i % static_cast<size_t>(options.num_partitions))});
  }
  // Loading now reports a bad program at compile time, not at the first call.
  for (PJRT_Device* device : executable->addressable_devices) {
    JFT_RETURN_IF_ERROR(executable->programFor(device).status().withContext(
        "loading " + executable->info->name + " on device " +
        std::to_string(device->description.id)));
  }
  return executable;
}

StatusOr<std::string> serializeDeviceAssignment(int replicas, int partitions,
                                                const std::vector<int>& device_ids) {
  if (replicas < 1 || partitions < 1 ||
      device_ids.size() !=
          static_cast<size_t>(replicas) * static_cast<size_t>(partitions))
    return invalidArgument("device assignment of " + std::to_string(device_ids.size()) +
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
      int id = device_ids[static_cast<size_t>(replica) * partitions + partition];
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

JFT_PJRT_ENTRY(loadedExecutableGetDeviceAssignment, LoadedExecutable_GetDeviceAssignment,
               serialized_device_assignment_deleter, {
                 JFT_RETURN_IF_ERROR(
                     requireNonNull(args->executable, "executable", kName));
                 const PJRT_LoadedExecutable& executable = *args->executable;
                 // The framework calls the deleter whatever it gets, so it is never null.
                 args->serialized_device_assignment = nullptr;
                 args->serialized_device_assignment_deleter =
                     [](PJRT_DeviceAssignmentSerialized* da) {
                       delete reinterpret_cast<std::string*>(da);
                     };
                 if (executable.portable) {
                   // No bytes: "portable, no device assignment" to the framework.
                   args->serialized_bytes = nullptr;
                   args->serialized_bytes_size = 0;
                   return Status::ok();
                 }
                 JFT_ASSIGN_OR_RETURN(std::string bytes,
                                      serializeDeviceAssignment(executable.num_replicas,
                                                                executable.num_partitions,
                                                                executable.device_ids));
                 auto* owned = new std::string(std::move(bytes));
                 args->serialized_bytes = owned->data();
                 args->serialized_bytes_size = owned->size();
                 args->serialized_device_assignment =
                     reinterpret_cast<PJRT_DeviceAssignmentSerialized*>(owned);
               })

}  // namespace jft::pjrt
