// Compile: capture the input, then say the compiler route is not there yet.
#include "pjrt/compile.h"

#include <string_view>

#include "pjrt/args.h"
#include "pjrt/client.h"
#include "pjrt/xla_flags.h"

namespace jft::pjrt {
namespace {

Status receiveProgram(const PJRT_Program* program, const char* options,
                      size_t optionsSize, CompileDump* dump, const char* function) {
  JFT_RETURN_IF_ERROR(requireNonNull(program, "program", function));
  JFT_RETURN_IF_ERROR(
      checkArgs(program, JFT_PJRT_SIZE_UP_TO(PJRT_Program, format_size), "PJRT_Program"));
  if (program->code == nullptr && program->code_size > 0)
    return invalidArgument(std::string(function) + ": program code is null");
  if (program->format == nullptr && program->format_size > 0)
    return invalidArgument(std::string(function) + ": program format is null");
  if (options == nullptr && optionsSize > 0)
    return invalidArgument(std::string(function) + ": compile_options is null");
  std::string_view format(program->format != nullptr ? program->format : "",
                          program->format_size);
  std::string_view code(program->code != nullptr ? program->code : "",
                        program->code_size);
  std::string_view compileOptions(options != nullptr ? options : "", optionsSize);

  std::string where;
  if (dump != nullptr && dump->enabled()) {
    auto written = dump->write(format, code, compileOptions);
    where = written.isOk()
                ? "; the program was dumped to " + *written
                : "; dumping the program failed: " + written.status().message();
  }
  return unimplemented(
      "jax-flagtree cannot compile programs yet: the compiler route is "
      "not wired into the plugin (received a " +
      std::to_string(code.size()) + "-byte '" + std::string(format) + "' program" +
      where + ")");
}

}  // namespace

PJRT_Error* clientCompile(PJRT_Client_Compile_Args* args) {
  constexpr const char* kName = "PJRT_Client_Compile";
  return boundary(kName, [&]() -> Status {
    JFT_RETURN_IF_ERROR(checkArgs(
        args, JFT_PJRT_SIZE_UP_TO(PJRT_Client_Compile_Args, executable), kName));
    JFT_RETURN_IF_ERROR(requireNonNull(args->client, "client", kName));
    return receiveProgram(args->program, args->compile_options,
                          args->compile_options_size, args->client->dump.get(), kName);
  });
}

PJRT_Error* compileForTopology(PJRT_Compile_Args* args) {
  constexpr const char* kName = "PJRT_Compile";
  return boundary(kName, [&]() -> Status {
    JFT_RETURN_IF_ERROR(
        checkArgs(args, JFT_PJRT_SIZE_UP_TO(PJRT_Compile_Args, executable), kName));
    CompileDump* dump = args->client != nullptr ? args->client->dump.get() : nullptr;
    CompileDump fromEnvironment(xlaFlagsFromEnvironment().dumpTo);
    return receiveProgram(args->program, args->compile_options,
                          args->compile_options_size,
                          dump != nullptr ? dump : &fromEnvironment, kName);
  });
}

}  // namespace jft::pjrt
