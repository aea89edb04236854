// A subcommand of jft. Each lives in its own file and is listed in
// commands.cc; jft.cc finds it by name and hands it the remaining arguments.
#pragma once

#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace jft::tools {

// Exit codes of every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // the input could not be processed
inline constexpr int kExitUsage = 2;    // the command line is wrong

struct Command {
  std::string_view name;
  std::string_view summary;  // one line for `jft --help`
  // `args` excludes the program and subcommand names.
  int (*run)(std::span<const std::string> args, std::ostream& out, std::ostream& err);
};

const std::vector<Command>& allCommands();

}  // namespace jft::tools
