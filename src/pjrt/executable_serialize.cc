// PJRT_Executable_Serialize and PJRT_Executable_DeserializeAndLoad: the bytes of
// executable_blob.h, and back to a loaded executable (JAX's persistent
// compilation cache).
#include "pjrt/executable_serialize.h"

#include <string>

#include "pjrt/args.h"
#include "pjrt/build_identity.h"
#include "pjrt/client.h"
#include "pjrt/compile.h"
#include "pjrt/device.h"
#include "pjrt/entry_points.h"
#include "pjrt/executable_blob.h"

namespace jft::pjrt {
namespace {

// cuDNN plans are built when a program is compiled (device_conv_library.h);
// a deserialized one readies them here, so a process without the library
// recompiles (onto another route) rather than failing at its first call.
Status prepareLibraries(runtime::Device& device, const runtime::Program& program) {
  auto prepareList = [&](const std::vector<runtime::Thunk>& list) -> Status {
    for (const runtime::Thunk& thunk : list) {
      const auto* library = std::get_if<runtime::LibraryThunk>(&thunk);
      if (library == nullptr || !std::holds_alternative<runtime::ConvDesc>(library->op))
        continue;
      Status prepared = device.prepareLibrary(library->op);
      if (!prepared.isOk())
        return failedPrecondition("the serialized executable's " +
                                  runtime::libraryOpText(library->op) +
                                  " cannot run here (" + prepared.message() +
                                  "); the program must be compiled again");
    }
    return Status::ok();
  };
  JFT_RETURN_IF_ERROR(prepareList(program.thunks));
  for (const std::vector<runtime::Thunk>& list : program.lists)
    JFT_RETURN_IF_ERROR(prepareList(list));
  return Status::ok();
}

}  // namespace

StatusOr<std::unique_ptr<PJRT_LoadedExecutable>> deserializeAndLoad(
    PJRT_Client& client, std::string_view bytes,
    std::optional<std::string_view> overriddenOptions, ProgramLoader loader) {
  JFT_ASSIGN_OR_RETURN(std::shared_ptr<ExecutableInfo> info,
                       deserializeExecutable(bytes, buildIdentity(), ""));
  if (overriddenOptions.has_value())
    info->compile_options = std::string(*overriddenOptions);
  auto options = parseCompileOptions(info->compile_options);
  if (!options.isOk())
    return options.status().withContext("the serialized executable's compile options");
  if (options->num_replicas != info->num_replicas ||
      options->num_partitions != info->num_partitions)
    return failedPrecondition(
        "the serialized executable " + info->name + " was compiled for " +
        std::to_string(info->num_replicas) + " replicas x " +
        std::to_string(info->num_partitions) + " partitions, the options ask for " +
        std::to_string(options->num_replicas) + " x " +
        std::to_string(options->num_partitions) + "; the program must be compiled again");
  JFT_ASSIGN_OR_RETURN(std::vector<PJRT_Device*> placed, placeProgram(client, *options));
  for (PJRT_Device* device : placed) {
    if (!device->addressable()) continue;
    const std::string here = targetText(deviceTarget(client, *device));
    if (here != info->target)
      return failedPrecondition("the serialized executable " + info->name +
                                " was built for target '" + info->target + "', device " +
                                std::to_string(device->description.id) + " is '" + here +
                                "'; the program must be compiled again");
    JFT_RETURN_IF_ERROR(prepareLibraries(*device->runtime, info->program));
  }
  return loadExecutable(client, std::move(info), *options, std::move(loader));
}

JFT_PJRT_ENTRY(executableSerialize, Executable_Serialize, serialized_executable_deleter, {
  JFT_RETURN_IF_ERROR(requireNonNull(args->executable, "executable", kName));
  if (args->executable->info == nullptr)
    return invalidArgument(std::string(kName) + ": the executable is empty");
  auto* owned =
      new std::string(serializeExecutable(*args->executable->info, buildIdentity()));
  args->serialized_bytes = owned->data();
  args->serialized_bytes_size = owned->size();
  args->serialized_executable = reinterpret_cast<PJRT_SerializedExecutable*>(owned);
  args->serialized_executable_deleter = [](PJRT_SerializedExecutable* handle) {
    delete reinterpret_cast<std::string*>(handle);
  };
})

JFT_PJRT_ENTRY(
    executableDeserializeAndLoad, Executable_DeserializeAndLoad, loaded_executable, {
      JFT_RETURN_IF_ERROR(requireNonNull(args->client, "client", kName));
      if (args->serialized_executable == nullptr && args->serialized_executable_size > 0)
        return invalidArgument(std::string(kName) + ": serialized_executable is null");
      std::string_view bytes(
          args->serialized_executable != nullptr ? args->serialized_executable : "",
          args->serialized_executable_size);
      // The overriding options are read only where the caller's struct holds
      // them; load_options (computation origin, multi-slice) has nothing to say
      // to a program on this client's own devices.
      std::optional<std::string_view> overridden;
      using A = PJRT_Executable_DeserializeAndLoad_Args;
      if (args->struct_size >=
              JFT_ABI_SIZE_UP_TO(A, overridden_serialized_compile_options_size) &&
          args->overridden_serialized_compile_options != nullptr &&
          args->overridden_serialized_compile_options_size > 0)
        overridden = std::string_view(args->overridden_serialized_compile_options,
                                      args->overridden_serialized_compile_options_size);
      auto loaded =
          deserializeAndLoad(*args->client, bytes, overridden, runtimeProgramLoader());
      if (!loaded.isOk()) return loaded.status().withContext(kName);
      args->loaded_executable = loaded->release();
    })

}  // namespace jft::pjrt
