// PJRT_Client_Create: compile settings from the environment, then the GPUs,
// then (under jax.distributed) the other processes' devices.
#include "pjrt/args.h"
#include "pjrt/client.h"
#include "pjrt/entry_points.h"
#include "runtime/gpu_platform.h"

namespace jft::pjrt {

// Reads the compile settings first, so a bad XLA_MODE fails clearly before any
// GPU is touched.
JFT_PJRT_ENTRY(clientCreate, Client_Create, client, {
  JFT_ASSIGN_OR_RETURN(ClientOptions options,
                       parseClientOptions(args->create_options, args->num_options));
  // Checked before any GPU is touched: a job of several processes needs the
  // key-value store to find the others.
  if (options.num_nodes > 1 && kvStoreFromCreateArgs(*args) == nullptr)
    return failedPrecondition(
        "jax-flagtree cannot join a job of " + std::to_string(options.num_nodes) +
        " processes: PJRT_Client_Create got no key-value store callbacks");
  // Also warns once about XLA_FLAGS entries nobody here honours.
  auto compiler_options = compiler::Options::fromEnvironment();
  if (!compiler_options.isOk())
    return compiler_options.status().withContext("jax-flagtree cannot create a client");
  auto platform = runtime::openGpuPlatform(options.visible_devices, options.memory);
  if (!platform.isOk()) {
    return platform.status().withContext("jax-flagtree cannot create a CUDA client");
  }
  JFT_ASSIGN_OR_RETURN(
      std::unique_ptr<PJRT_Client> client,
      assembleClient(std::move(platform).value(), std::move(options),
                     std::move(compiler_options).value(), kvStoreFromCreateArgs(*args)));
  // Unless its identity is remembered, the compiler is imported in a worker
  // while JAX traces the first program.
  client->kernel_workers->startAhead();
  args->client = client.release();
})

}  // namespace jft::pjrt
