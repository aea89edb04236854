// The subcommand table: one line per command.
#include "command.h"
#include "compile_command.h"
#include "inspect_command.h"
#include "native_command.h"

namespace jft::tools {

const std::vector<Command>& allCommands() {
  static const std::vector<Command> commands = {
      {"inspect", "print the IR imported from a StableHLO artifact, with an op census",
       runInspect},
      {"compile",
       "compile a StableHLO artifact offline: IR, fusion plan, TTIR, route report",
       runCompile},
      {"native", "print the native route's CUDA C for each loop and reduction group",
       runNative},
  };
  return commands;
}

}  // namespace jft::tools
