#include "inspect_command.h"

#include <ostream>

#include "command.h"
#include "frontend/vhlo/import.h"
#include "ir/printer.h"
#include "op_census.h"
#include "read_file.h"

namespace jft::tools {
namespace {

constexpr std::string_view kInspectHelp =
    "usage: jft inspect [--summary] [--locations] FILE.mlirbc\n"
    "\n"
    "Imports FILE (a StableHLO portable artifact: MLIR bytecode of VHLO, as JAX\n"
    "hands it to a PJRT plugin) and prints the IR, then a table of the op kinds\n"
    "used: count and the source location of each kind's first use.\n"
    "\n"
    "options:\n"
    "  --summary   print only the op table\n"
    "  --locations print each op's full source location in the IR listing\n"
    "  --help      print this help\n"
    "\n"
    "FILE may be - to read standard input.\n"
    "\n"
    "Exit status: 0 on success, 1 if the file cannot be read or imported, 2 on a\n"
    "wrong command line.\n";

}  // namespace

int runInspect(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  bool summary_only = false;
  bool locations = false;
  std::string path;
  for (const std::string& arg : args) {
    if (arg == "--help" || arg == "-h") {
      out << kInspectHelp;
      return kExitOk;
    }
    if (arg == "--summary") {
      summary_only = true;
    } else if (arg == "--locations") {
      locations = true;
    } else if (arg.starts_with("-") && arg != "-") {
      err << "jft inspect: unknown option '" << arg << "'\n" << kInspectHelp;
      return kExitUsage;
    } else if (path.empty()) {
      path = arg;
    } else {
      err << "jft inspect: one file at a time ('" << path << "' and '" << arg << "')\n";
      return kExitUsage;
    }
  }
  if (path.empty()) {
    err << "jft inspect: missing FILE\n" << kInspectHelp;
    return kExitUsage;
  }

  StatusOr<std::vector<uint8_t>> bytes = readFileBytes(path);
  if (!bytes.isOk()) {
    err << "jft inspect: " << bytes.status().toString() << "\n";
    return kExitFailure;
  }
  StatusOr<ir::Module> module = frontend::importStableHlo(bytes->data(), bytes->size());
  if (!module.isOk()) {
    err << "jft inspect: " << path << ": " << module.status().toString() << "\n";
    return kExitFailure;
  }
  if (!summary_only) {
    ir::PrintOptions options;
    options.print_locations = locations;
    options.max_dense_elements = 16;
    out << ir::printModule(*module, options) << "\n";
  }
  out << formatOpCensus(*module, takeOpCensus(*module));
  return kExitOk;
}

}  // namespace jft::tools
