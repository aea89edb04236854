// jft: the command line of jax-flagtree. Finds the subcommand named by the
// first argument and runs it; everything else lives in the command's file.
#include <iostream>
#include <string>
#include <vector>

#include "command.h"

namespace jft::tools {
namespace {

void printUsage(std::ostream& out) {
  out << "usage: jft <command> [options] [arguments]\n\ncommands:\n";
  for (const Command& c : allCommands()) {
    std::string name(c.name);
    name.resize(std::max<size_t>(name.size(), 10), ' ');
    out << "  " << name << "  " << c.summary << "\n";
  }
  out << "\nRun `jft <command> --help` for the options of a command.\n";
}

int dispatch(const std::vector<std::string>& argv) {
  if (argv.size() < 2) {
    printUsage(std::cerr);
    return kExitUsage;
  }
  const std::string& name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    printUsage(std::cout);
    return kExitOk;
  }
  for (const Command& c : allCommands()) {
    if (c.name != name) continue;
    std::vector<std::string> rest(argv.begin() + 2, argv.end());
    return c.run(rest, std::cout, std::cerr);
  }
  std::cerr << "jft: unknown command '" << name << "'\n\n";
  printUsage(std::cerr);
  return kExitUsage;
}

}  // namespace
}  // namespace jft::tools

int main(int argc, char** argv) {
  return jft::tools::dispatch(std::vector<std::string>(argv, argv + argc));
}
