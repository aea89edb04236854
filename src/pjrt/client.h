// PJRT_Client: the plugin's view of one process's GPUs, and of the other
// processes' GPUs in a jax.distributed job.
//
// Owns the runtime platform, a PJRT_Device and a MemorySpace per GPU (and a
// PJRT_Device without runtime or memories per GPU of another process), the
// topology, the compile settings read from the environment at creation
// (XLA_MODE, XLA_FLAGTREE_MATMUL, XLA_FLAGTREE_CONV, XLA_FLAGTREE_LOG, XLA_FLAGS) and,
// from the first compile on, the kernel compiler with its worker processes. Member order
// matters: the platform is destroyed last, after everything that points into it.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "compiler/kernel_workers.h"
#include "pjrt/abi.h"
#include "pjrt/compile_dump.h"
#include "pjrt/create_options.h"
#include "pjrt/device.h"
#include "pjrt/device_exchange.h"
#include "pjrt/kv_store.h"
#include "pjrt/memory.h"
#include "pjrt/topology.h"
#include "runtime/device.h"

struct PJRT_Client {
  std::unique_ptr<jft::runtime::Platform> platform;
  jft::pjrt::ClientOptions options;
  std::string platform_name;
  std::string platform_version;
  // Storage of every device, this process's and the others'.
  std::vector<std::unique_ptr<PJRT_Device>> device_storage;
  // This process's (addressable) devices, by local index; their global ids
  // start at the device counts of the lower process indices.
  std::vector<PJRT_Device*> devices;
  // Every process's devices in global id order (PJRT_Client_Devices); the
  // same as `devices` in a single process.
  std::vector<PJRT_Device*> all_devices;
  int process_index = 0;
  int process_count = 1;
  std::vector<std::unique_ptr<jft::pjrt::MemorySpace>> memory_storage;
  std::vector<PJRT_Memory*> memories;
  std::unique_ptr<PJRT_TopologyDescription> topology;
  std::unique_ptr<jft::pjrt::CompileDump> dump;
  jft::compiler::Options compiler_options;  // target left for each compile to fill
  // The kernel compiler: its workers start on the first compile that needs them
  // (starting them is only worth it once a program is compiled).
  std::unique_ptr<jft::compiler::KernelWorkers> kernel_workers;

  // Whether `device` is one of this process's devices.
  bool ownsDevice(const PJRT_Device* device) const;
  // The device with global id `id`, of any process; null when none has it.
  PJRT_Device* deviceWithId(int64_t id) const;
  bool ownsMemory(const PJRT_Memory* memory) const;
};

namespace jft::pjrt {

// How long client creation waits for the other processes' device lists.
inline constexpr std::chrono::milliseconds kDeviceExchangeTimeout{5 * 60 * 1000};

// Builds a client over an opened platform (split out so tests can use a fake).
// `layout` places it in a job of several processes; by default it is alone.
// The layout's entry for this process must list the platform's devices.
std::unique_ptr<PJRT_Client> makeClient(std::unique_ptr<runtime::Platform> platform,
                                        ClientOptions options, std::string dumpDirectory,
                                        const ProcessLayout& layout = {});

// What PJRT_Client_Create does once the platform is open: with num_nodes > 1
// in `options`, exchanges device lists through `store` (required: a clear
// FAILED_PRECONDITION without one) and hands the platform a clique-id
// exchange over it; then makeClient. Split out so tests can join two clients
// in one process.
StatusOr<std::unique_ptr<PJRT_Client>> assembleClient(
    std::unique_ptr<runtime::Platform> platform, ClientOptions options,
    compiler::Options compiler_options, std::shared_ptr<KvStore> store);

// The kernel compiler the create options ask for: `python_executable -m
// worker_module` (python3 and jax_flagtree.worker when absent), its failing
// TTIR dumped under `dumpDirectory` when set.
compiler::KernelWorkerSettings kernelWorkerSettings(const ClientOptions& options,
                                                    const std::string& dumpDirectory,
                                                    bool log = false);

}  // namespace jft::pjrt
