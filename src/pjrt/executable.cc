// Loaded-executable entry points and the device assignment encoding.
#include "pjrt/executable.h"

#include <cstdint>

#include "pjrt/args.h"

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
    JFT_ASSIGN_OR_RETURN(
        std::string bytes,
        serializeDeviceAssignment(executable.numReplicas, executable.numPartitions,
                                  executable.deviceIds));
    auto* owned = new std::string(std::move(bytes));
    args->serialized_bytes = owned->data();
    args->serialized_bytes_size = owned->size();
    args->serialized_device_assignment =
        reinterpret_cast<PJRT_DeviceAssignmentSerialized*>(owned);
    args->serialized_device_assignment_deleter = [](PJRT_DeviceAssignmentSerialized* da) {
      delete reinterpret_cast<std::string*>(da);
    };
    return Status::ok();
  });
}

}  // namespace jft::pjrt
