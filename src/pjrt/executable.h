// PJRT_Executable and PJRT_LoadedExecutable, and the entry points that
// query them.
//
// A compile yields one ExecutableInfo (shared, immutable) and a loaded
// executable that holds the program loaded on each of its addressable
// devices (one per participant of this process: replicas x partitions in all,
// some possibly in other processes). PJRT_Executable is
// a caller-owned view of the same info (GetExecutable hands out a new one each
// time). Portable executables (compile_portable_executable) have no device:
// Execute names one with execute_device and the program is loaded there on
// first use. Execute itself lives in execute.h.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "pjrt/abi.h"
#include "pjrt/abi_executable.h"
#include "pjrt/compile_options.h"
#include "pjrt/executable_info.h"
#include "pjrt/executable_program.h"
#include "runtime/collective_groups.h"
#include "support/status.h"

struct PJRT_Executable {
  std::shared_ptr<const jft::pjrt::ExecutableInfo> info;
};

struct PJRT_LoadedExecutable {
  PJRT_Client* client = nullptr;
  int num_replicas = 1;
  int num_partitions = 1;
  // Device id of (replica r, partition p) at r * num_partitions + p; empty for
  // a portable executable.
  std::vector<int> device_ids;
  // The same as the runtime reads it; executions over several participants
  // point their ParticipantContext here.
  jft::runtime::ParticipantLayout layout;
  std::shared_ptr<const jft::pjrt::ExecutableInfo> info;
  bool portable = false;
  // This process's participants in (replica, partition) order, with their
  // logical ids at the same index.
  std::vector<PJRT_Device*> addressable_devices;
  std::vector<PJRT_LogicalDeviceIds> logical_ids;

  int64_t participants() const {
    return static_cast<int64_t>(num_replicas) * num_partitions;
  }
  jft::pjrt::ProgramLoader loader;

  // The program loaded on `device`, loading it on first use. FAILED_PRECONDITION
  // once the executable has been deleted.
  jft::StatusOr<std::shared_ptr<jft::pjrt::DeviceProgram>> programFor(
      PJRT_Device* device);
  // Drops the loaded programs; executions already enqueued finish first.
  void markDeleted();
  bool isDeleted();

 private:
  std::mutex mutex_;
  bool deleted_ = false;
  std::map<PJRT_Device*, std::shared_ptr<jft::pjrt::DeviceProgram>> programs_;
};

namespace jft::pjrt {

// The devices a program runs on, participant (r, p) at r * partitions + p:
// the compile options' device assignment, else (one participant) their
// device_ordinal, else the job's first replicas x partitions devices in id
// order, as XLA assigns them. One device (the client's first) for a portable
// executable, which must have one participant. INVALID_ARGUMENT when a device
// is missing, named twice, or none is this process's.
StatusOr<std::vector<PJRT_Device*>> placeProgram(PJRT_Client& client,
                                                 const CompileOptions& options);

// Places a compiled program (placeProgram) and loads it at once on each of
// this process's participants; or on no device for a portable executable.
StatusOr<std::unique_ptr<PJRT_LoadedExecutable>> loadExecutable(
    PJRT_Client& client, std::shared_ptr<const ExecutableInfo> info,
    const CompileOptions& options, ProgramLoader loader);

// Serialized xla.DeviceAssignmentProto: replica_count (1), computation_count (2),
// computation_devices (3) each holding replica_device_ids (1, packed int64).
StatusOr<std::string> serializeDeviceAssignment(int replicas, int partitions,
                                                const std::vector<int>& device_ids);

}  // namespace jft::pjrt
