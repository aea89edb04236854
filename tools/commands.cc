// The subcommand table: one line per command.
#include "command.h"
#include "compile_command.h"
#include "inspect_command.h"

namespace jft::tools {

const std::vector<Command>& allCommands() {
  static const std::vector<Command> commands = {
      {"inspect", "print the IR imported from a StableHLO artifact, with an op census",
       runInspect},
      {"compile",
       "compile a StableHLO artifact offline: IR, fusion plan, TTIR, route report",
       runCompile},
  };
  return commands;
}

}  // namespace jft::tools
