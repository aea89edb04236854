#include "compile_command.h"

#include <charconv>
#include <memory>
#include <optional>
#include <ostream>

#include "command.h"
#include "compiler/compiler.h"
#include "kernel_compiler/kernel_compiler.h"
#include "nvrtc_native_compiler.h"
#include "read_file.h"

namespace jft::tools {
namespace {

constexpr std::string_view kCompileHelp =
    "usage: jft compile [options] FILE.mlirbc\n"
    "\n"
    "Compiles FILE (a StableHLO portable artifact) the way the plugin does: import,\n"
    "IR passes, fusion plan, one TTIR module per kernel; with --binaries, also the\n"
    "kernel binaries through the compile worker and the program's buffers.\n"
    "\n"
    "options:\n"
    "  --emit WHAT        what to print: ir (after passes), plan, ttir, cuda (the\n"
    "                     native route's kernels), report (default)\n"
    "  --mode M           back_unsupported (default), fl_only, back_fail, native\n"
    "  --matmul R         where dot_general runs: auto (default), library, ttir\n"
    "                     (as XLA_FLAGTREE_MATMUL)\n"
    "  --conv R           where convolution runs: auto (default), library, cudnn, ttir\n"
    "                     (as XLA_FLAGTREE_CONV)\n"
    "  --replicas N       num_replicas to compile for (default 1)\n"
    "  --partitions N     num_partitions to compile for (default 1); with more than\n"
    "                     one participant in all, collectives take the collective\n"
    "                     route\n"
    "  --binaries         compile the kernels too (needs a Python with triton, and\n"
    "                     libnvrtc for native kernels: JFT_NVRTC_LIBRARY, "
    "JFT_NVRTC_DIR)\n"
    "  --python PATH      the Python that runs the worker (default python3)\n"
    "  --worker-path DIR  folder holding jax_flagtree/, put on PYTHONPATH\n"
    "  --cache-dir DIR    kernel cache (default: JAX_FLAGTREE_CACHE_DIR, else\n"
    "                     ~/.cache/jax-flagtree)\n"
    "  --workers N        parallel compile workers (default 2)\n"
    "  --arch CC          target compute capability (default 90)\n"
    "  --dump-to DIR      write every stage into DIR (as --xla_dump_to)\n"
    "  --log              print one line per kernel on stderr (as XLA_FLAGTREE_LOG=1)\n"
    "  --recompute        recompute cheap elementwise values in their readers\n"
    "                     (as XLA_FLAGTREE_RECOMPUTE=1)\n"
    "  --help             print this help\n"
    "\n"
    "Exit status: 0 on success, 1 if FILE cannot be read or compiled (the error on\n"
    "stderr), 2 on a wrong command line.\n";

struct Settings {
  std::string path;
  std::string emit = "report";
  compiler::Options options;
  bool binaries = false;
  std::string python = "python3";
  std::string worker_path;
  std::string cache_dir;
  int workers = 2;
};

// Parses the command line; a message in `problem` means a usage error.
std::optional<Settings> parse(std::span<const std::string> args, std::string& problem,
                              bool& help) {
  Settings s;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&](std::string& into) {
      if (i + 1 >= args.size()) {
        problem = "option " + arg + " needs a value";
        return false;
      }
      into = args[++i];
      return true;
    };
    std::string text;
    if (arg == "--help" || arg == "-h") {
      help = true;
      return s;
    } else if (arg == "--emit") {
      if (!value(s.emit)) return std::nullopt;
      if (s.emit != "ir" && s.emit != "plan" && s.emit != "ttir" && s.emit != "cuda" &&
          s.emit != "report") {
        problem = "--emit takes ir, plan, ttir, cuda or report, not '" + s.emit + "'";
        return std::nullopt;
      }
    } else if (arg == "--mode") {
      if (!value(text)) return std::nullopt;
      StatusOr<compiler::Mode> mode = compiler::parseMode(text);
      if (!mode.isOk() || text.empty()) {
        problem =
            "--mode: " + (mode.isOk() ? std::string("empty") : mode.status().message());
        return std::nullopt;
      }
      s.options.mode = *mode;
    } else if (arg == "--matmul") {
      if (!value(text)) return std::nullopt;
      StatusOr<fusion::MatmulRoute> route = compiler::parseMatmulRoute(text);
      if (!route.isOk() || text.empty()) {
        problem = "--matmul: " +
                  (route.isOk() ? std::string("empty") : route.status().message());
        return std::nullopt;
      }
      s.options.matmul = *route;
    } else if (arg == "--conv") {
      if (!value(text)) return std::nullopt;
      StatusOr<fusion::ConvRoute> route = compiler::parseConvRoute(text);
      if (!route.isOk() || text.empty()) {
        problem =
            "--conv: " + (route.isOk() ? std::string("empty") : route.status().message());
        return std::nullopt;
      }
      s.options.conv = *route;
    } else if (arg == "--replicas" || arg == "--partitions") {
      if (!value(text)) return std::nullopt;
      int count = 0;
      auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), count);
      if (error != std::errc() || end != text.data() + text.size() || count < 1 ||
          count > 65536) {
        problem = arg + " takes a number from 1 to 65536, not '" + text + "'";
        return std::nullopt;
      }
      (arg == "--replicas" ? s.options.num_replicas : s.options.num_partitions) = count;
    } else if (arg == "--binaries") {
      s.binaries = true;
    } else if (arg == "--python") {
      if (!value(s.python)) return std::nullopt;
    } else if (arg == "--worker-path") {
      if (!value(s.worker_path)) return std::nullopt;
    } else if (arg == "--cache-dir") {
      if (!value(s.cache_dir)) return std::nullopt;
    } else if (arg == "--workers") {
      if (!value(text)) return std::nullopt;
      auto [end, error] =
          std::from_chars(text.data(), text.data() + text.size(), s.workers);
      if (error != std::errc() || end != text.data() + text.size() || s.workers < 1 ||
          s.workers > 256) {
        problem = "--workers takes a number from 1 to 256, not '" + text + "'";
        return std::nullopt;
      }
    } else if (arg == "--arch") {
      if (!value(s.options.target.arch)) return std::nullopt;
    } else if (arg == "--dump-to") {
      if (!value(s.options.dump_dir)) return std::nullopt;
    } else if (arg == "--log") {
      s.options.log = true;
    } else if (arg == "--recompute") {
      s.options.recompute = true;
    } else if (arg.starts_with("-") && arg != "-") {
      problem = "unknown option '" + arg + "'";
      return std::nullopt;
    } else if (s.path.empty()) {
      s.path = arg;
    } else {
      problem = "one file at a time ('" + s.path + "' and '" + arg + "')";
      return std::nullopt;
    }
  }
  if (s.path.empty()) {
    problem = "missing FILE";
    return std::nullopt;
  }
  return s;
}

StatusOr<std::unique_ptr<kernel_compiler::KernelCompiler>> makeKernelCompiler(
    const Settings& s) {
  kernel_compiler::KernelCompilerOptions options;
  options.pool.command = kernel_compiler::pythonWorkerCommand(s.python, s.worker_path);
  options.pool.num_workers = s.workers;
  options.cache_dir = s.cache_dir;
  return kernel_compiler::KernelCompiler::create(std::move(options));
}

}  // namespace

int runCompile(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  std::string problem;
  bool help = false;
  std::optional<Settings> settings = parse(args, problem, help);
  if (help) {
    out << kCompileHelp;
    return kExitOk;
  }
  if (!settings) {
    err << "jft compile: " << problem << "\n" << kCompileHelp;
    return kExitUsage;
  }

  StatusOr<std::vector<uint8_t>> bytes = readFileBytes(settings->path);
  if (!bytes.isOk()) {
    err << "jft compile: " << bytes.status().toString() << "\n";
    return kExitFailure;
  }
  std::unique_ptr<kernel_compiler::KernelCompiler> kernel_compiler;
  if (settings->binaries) {
    StatusOr<std::unique_ptr<kernel_compiler::KernelCompiler>> made =
        makeKernelCompiler(*settings);
    if (!made.isOk()) {
      err << "jft compile: " << made.status().toString() << "\n";
      return kExitFailure;
    }
    kernel_compiler = std::move(made).value();
  }
  // Native kernels are built for the --arch given (a compute capability).
  int arch = 0;
  const std::string& cc = settings->options.target.arch;
  std::from_chars(cc.data(), cc.data() + cc.size(), arch);
  NvrtcNativeCompiler native_compiler(arch);
  settings->options.native_compiler = &native_compiler;
  compiler::Stages stages;
  std::string_view input(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  StatusOr<compiler::Executable> executable =
      compiler::compile(input, settings->options, kernel_compiler.get(), &stages);
  if (!executable.isOk()) {
    err << "jft compile: " << settings->path << ": " << executable.status().toString()
        << "\n";
    return kExitFailure;
  }
  auto withNewline = [](const std::string& text) {
    return text.empty() || text.back() == '\n' ? text : text + "\n";
  };
  if (settings->emit == "ir") {
    out << withNewline(stages.ir_after_passes);
  } else if (settings->emit == "plan") {
    out << withNewline(stages.plan);
  } else if (settings->emit == "ttir") {
    for (size_t i = 0; i < stages.ttir.size(); ++i)
      out << "// kernel " << stages.kernel_names[i] << "\n"
          << withNewline(stages.ttir[i]);
  } else if (settings->emit == "cuda") {
    for (size_t i = 0; i < stages.cuda.size(); ++i)
      out << "// kernel " << stages.cuda_names[i] << "\n" << withNewline(stages.cuda[i]);
  } else {
    out << executable->report.text();
    const runtime::Program& program = executable->program;
    out << "program: " << program.thunks.size() << " thunks, " << program.slots.size()
        << " buffer slots, temp arena " << program.temp_bytes << " bytes";
    if (settings->binaries) out << ", " << program.kernels.size() << " kernel binaries";
    out << "\n";
    out << "fingerprint: " << executable->fingerprint << "\n";
  }
  return kExitOk;
}

}  // namespace jft::tools
