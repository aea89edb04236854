// PJRT_Client_Create: compile settings from the environment, then the GPUs.
#include "pjrt/args.h"
#include "pjrt/client.h"
#include "runtime/gpu/cuda_platform.h"

namespace jft::pjrt {

PJRT_Error* clientCreate(PJRT_Client_Create_Args* args) {
  constexpr const char* kName = "PJRT_Client_Create";
  return boundary(kName, [&]() -> Status {
    JFT_RETURN_IF_ERROR(
        checkArgs(args, JFT_PJRT_SIZE_UP_TO(PJRT_Client_Create_Args, client), kName));
    JFT_ASSIGN_OR_RETURN(ClientOptions options,
                         parseClientOptions(args->create_options, args->num_options));
    // Also warns once about XLA_FLAGS entries nobody here honours.
    auto compilerOptions = compiler::Options::fromEnvironment();
    if (!compilerOptions.isOk())
      return compilerOptions.status().withContext("jax-flagtree cannot create a client");
    auto platform = runtime::gpu::openCudaPlatform(options.visibleDevices);
    if (!platform.isOk()) {
      return platform.status().withContext("jax-flagtree cannot create a CUDA client");
    }
    std::string dumpDirectory = compilerOptions->dump_dir;
    std::unique_ptr<PJRT_Client> client = makeClient(
        std::move(platform).value(), std::move(options), std::move(dumpDirectory));
    client->compilerOptions = std::move(compilerOptions).value();
    args->client = client.release();
    return Status::ok();
  });
}

}  // namespace jft::pjrt
