// Compile: capture the input, compile it, load it.
#include "pjrt/compile.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "compiler/compile_artifact.h"
#include "compiler/xla_flags.h"
#include "pjrt/args.h"
#include "pjrt/client.h"
#include "pjrt/compile_options.h"
#include "pjrt/device.h"
#include "pjrt/device_conv_library.h"
#include "pjrt/device_measurer.h"
#include "pjrt/device_native_compiler.h"
#include "pjrt/entry_points.h"
#include "pjrt/executable.h"

namespace jft::pjrt {
namespace {

struct Received {
  std::string_view format;
  std::string_view code;
  std::string_view options;
};

StatusOr<Received> receiveProgram(const PJRT_Program* program, const char* options,
                                  size_t optionsSize, CompileDump* dump,
                                  const char* function) {
  JFT_RETURN_IF_ERROR(requireNonNull(program, "program", function));
  JFT_RETURN_IF_ERROR(
      checkArgs(program, JFT_ABI_SIZE_UP_TO(PJRT_Program, format_size), "PJRT_Program"));
  if (program->code == nullptr && program->code_size > 0)
    return invalidArgument(std::string(function) + ": program code is null");
  if (program->format == nullptr && program->format_size > 0)
    return invalidArgument(std::string(function) + ": program format is null");
  if (options == nullptr && optionsSize > 0)
    return invalidArgument(std::string(function) + ": compile_options is null");
  Received received;
  received.format = std::string_view(program->format != nullptr ? program->format : "",
                                     program->format_size);
  received.code =
      std::string_view(program->code != nullptr ? program->code : "", program->code_size);
  received.options = std::string_view(options != nullptr ? options : "", optionsSize);
  if (dump != nullptr && dump->enabled()) {
    auto written = dump->write(received.format, received.code, received.options);
    if (!written.isOk())
      std::fprintf(stderr, "jax-flagtree: dumping the program failed: %s\n",
                   written.status().message().c_str());
  }
  return received;
}

Status compileAndLoad(PJRT_Client& client, const Received& received,
                      PJRT_LoadedExecutable*& out) {
  constexpr const char* kName = "PJRT_Client_Compile";
  if (received.format != "mlir")
    return unimplemented(
        std::string(kName) +
        ": jax-flagtree compiles StableHLO programs (format 'mlir'), not '" +
        std::string(received.format) + "'");
  auto options = parseCompileOptions(received.options);
  if (!options.isOk()) return options.status().withContext(std::string(kName));
  compiler::Options compiler_options = client.compiler_options;
  compiler_options.num_replicas = options->num_replicas;
  compiler_options.num_partitions = options->num_partitions;
  JFT_ASSIGN_OR_RETURN(std::vector<PJRT_Device*> placed, placeProgram(client, *options));
  // Every participant has the same GPU model in the jobs we run; the program
  // is built for the first of this process's.
  PJRT_Device* device = nullptr;
  for (PJRT_Device* candidate : placed) {
    if (candidate->addressable()) {
      device = candidate;
      break;
    }
  }
  if (device == nullptr)
    return internalError(std::string(kName) + ": no device to build for");
  compiler_options.target = deviceTarget(client, *device);
  // --xla_gpu_autotune_level >= 1: the compiler times its candidates on the
  // device the program is placed on (the first, for several).
  DeviceMeasurer measurer(*device->runtime);
  if (compiler_options.autotune_level > 0) compiler_options.measurer = &measurer;
  // Library convolutions: cuDNN, when wanted (cudnnWanted), where every
  // device of this process the program runs on loads it and takes the
  // description (each builds its plan now, kept for execution); else patches
  // + cuBLASLt.
  std::vector<runtime::Device*> participants;
  for (PJRT_Device* candidate : placed)
    if (candidate->addressable()) participants.push_back(candidate->runtime);
  DeviceConvLibrary convLibrary(std::move(participants));
  if (cudnnWanted()) compiler_options.conv_library = &convLibrary;
  // The native route's kernels (CUDA C) through the device's NVRTC; a
  // program that needs none never loads it.
  DeviceNativeCompiler nativeCompiler(*device->runtime);
  compiler_options.native_compiler = &nativeCompiler;
  // Several partitions: the compiler runs JAX's global view as it is when all
  // replicated, as its manual computation's body when fully manual, else
  // refuses it; the kernel workers start once it is to be compiled.
  JFT_ASSIGN_OR_RETURN(compiler::Executable compiled,
                       compiler::compileArtifact(received.code, compiler_options,
                                                 client.kernel_workers.get()));
  JFT_ASSIGN_OR_RETURN(std::shared_ptr<ExecutableInfo> info,
                       describeExecutable(std::move(compiled), std::string(received.code),
                                          std::string(received.options)));
  info->num_replicas = options->num_replicas;
  info->num_partitions = options->num_partitions;
  info->target = targetText(compiler_options.target);
  JFT_ASSIGN_OR_RETURN(
      std::unique_ptr<PJRT_LoadedExecutable> loaded,
      loadExecutable(client, std::move(info), *options, runtimeProgramLoader()));
  out = loaded.release();
  return Status::ok();
}

}  // namespace

compiler::KernelTarget deviceTarget(const PJRT_Client& client,
                                    const PJRT_Device& device) {
  const runtime::DeviceInfo& info = device.runtime->info();
  compiler::KernelTarget target;
  target.backend = client.platform_name == "cuda" ? "cuda" : "hip";
  target.arch = std::to_string(info.compute_major * 10 + info.compute_minor);
  target.warp_size = info.warp_size;
  return target;
}

std::string targetText(const compiler::KernelTarget& target) {
  return target.backend + " " + target.arch + " warp " + std::to_string(target.warp_size);
}

JFT_PJRT_ENTRY(clientCompile, Client_Compile, executable, {
  JFT_RETURN_IF_ERROR(requireNonNull(args->client, "client", kName));
  JFT_ASSIGN_OR_RETURN(
      Received received,
      receiveProgram(args->program, args->compile_options, args->compile_options_size,
                     args->client->dump.get(), kName));
  return compileAndLoad(*args->client, received, args->executable);
})

JFT_PJRT_ENTRY(compileForTopology, Compile, executable, {
  CompileDump* dump = args->client != nullptr ? args->client->dump.get() : nullptr;
  const char* xlaFlags = std::getenv("XLA_FLAGS");
  auto flags = compiler::parseXlaFlags(xlaFlags != nullptr ? xlaFlags : "");
  CompileDump fromEnvironment(flags.isOk() ? flags->dump_to : "");
  JFT_ASSIGN_OR_RETURN(
      Received received,
      receiveProgram(args->program, args->compile_options, args->compile_options_size,
                     dump != nullptr ? dump : &fromEnvironment, kName));
  return unimplemented(
      "jax-flagtree compiles only for a client's own devices: the compiler route runs "
      "through PJRT_Client_Compile; ahead-of-time PJRT_Compile of a " +
      std::to_string(received.code.size()) + "-byte '" + std::string(received.format) +
      "' program is not supported");
})

}  // namespace jft::pjrt
