// The subcommand table: one line per command.
#include "command.h"
#include "inspect_command.h"

namespace jft::tools {

const std::vector<Command>& allCommands() {
  static const std::vector<Command> commands = {
      {"inspect", "print the IR imported from a StableHLO artifact, with an op census",
       runInspect},
  };
  return commands;
}

}  // namespace jft::tools
