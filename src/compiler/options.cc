// Options from the environment: XLA_MODE, XLA_FLAGTREE_MATMUL,
// XLA_FLAGTREE_CONV, XLA_FLAGTREE_LOG, XLA_FLAGTREE_FAIL_KERNELS,
// XLA_FLAGTREE_HORIZONTAL, XLA_FLAGTREE_ATTENTION, XLA_FLAGTREE_SORT_REGISTERS
// and XLA_FLAGS.
#include <atomic>
#include <cstdlib>
#include <iostream>

#include "compiler/compiler.h"
#include "compiler/xla_flags.h"
#include "fusion/conv_gemm_form.h"
#include "fusion/matmul_form.h"

namespace jft::compiler {
namespace {

struct ModeName {
  Mode mode;
  const char* name;
};
constexpr ModeName kModes[] = {{Mode::kBackUnsupported, "back_unsupported"},
                               {Mode::kFlOnly, "fl_only"},
                               {Mode::kBackFail, "back_fail"},
                               {Mode::kNative, "native"}};

std::string normalized(std::string_view text) {
  size_t begin = text.find_first_not_of(" \t\r\n");
  size_t end = text.find_last_not_of(" \t\r\n");
  std::string out;
  if (begin == std::string_view::npos) return out;
  for (char c : text.substr(begin, end - begin + 1))
    out.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
  return out;
}

StatusOr<bool> parseSwitch(const char* name, std::string_view text) {
  std::string value = normalized(text);
  if (value.empty() || value == "0" || value == "false" || value == "no" ||
      value == "off")
    return false;
  if (value == "true" || value == "yes" || value == "on") return true;
  if (value.find_first_not_of("0123456789") == std::string::npos) return true;
  return invalidArgument(std::string(name) + "='" + std::string(text) +
                         "': expected 1/0, true/false, yes/no or on/off");
}

// "a, b,,c" -> {"a", "b", "c"}: the kernel-name pieces of
// XLA_FLAGTREE_FAIL_KERNELS.
std::vector<std::string> commaList(std::string_view text) {
  std::vector<std::string> pieces;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view piece = text.substr(start, end - start);
    const size_t first = piece.find_first_not_of(" \t\r\n");
    if (first != std::string_view::npos) {
      const size_t last = piece.find_last_not_of(" \t\r\n");
      pieces.emplace_back(piece.substr(first, last - first + 1));
    }
    start = end + 1;
  }
  return pieces;
}

std::optional<std::string> processEnv(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

}  // namespace

const char* modeName(Mode mode) {
  for (const ModeName& m : kModes)
    if (m.mode == mode) return m.name;
  return "unknown";
}

StatusOr<Mode> parseMode(std::string_view text) {
  std::string value = normalized(text);
  if (value.empty()) return Mode::kBackUnsupported;
  for (const ModeName& m : kModes)
    if (value == m.name) return m.mode;
  std::string accepted;
  for (const ModeName& m : kModes)
    accepted += std::string(accepted.empty() ? "" : ", ") + m.name;
  return invalidArgument("XLA_MODE='" + std::string(text) +
                         "' is not a mode; accepted: " + accepted +
                         " (unset means back_unsupported)");
}

StatusOr<fusion::MatmulRoute> parseMatmulRoute(std::string_view text) {
  using fusion::MatmulRoute;
  std::string value = normalized(text);
  if (value.empty()) return MatmulRoute::kAuto;
  for (MatmulRoute r : {MatmulRoute::kAuto, MatmulRoute::kLibrary, MatmulRoute::kTtir})
    if (value == fusion::matmulRouteName(r)) return r;
  return invalidArgument("XLA_FLAGTREE_MATMUL='" + std::string(text) +
                         "' is not a matmul route; accepted: auto, library, ttir "
                         "(unset means auto)");
}

StatusOr<fusion::ConvRoute> parseConvRoute(std::string_view text) {
  using fusion::ConvRoute;
  std::string value = normalized(text);
  if (value.empty()) return ConvRoute::kAuto;
  for (ConvRoute r :
       {ConvRoute::kAuto, ConvRoute::kLibrary, ConvRoute::kTtir, ConvRoute::kCudnn})
    if (value == fusion::convRouteName(r)) return r;
  return invalidArgument(
      "XLA_FLAGTREE_CONV='" + std::string(text) +
      "' is not a convolution route; accepted: auto, library, cudnn, ttir "
      "(unset means auto)");
}

StatusOr<Options> Options::fromEnvironment(const EnvLookup& env) {
  Options options;
  if (std::optional<std::string> mode = env("XLA_MODE")) {
    JFT_ASSIGN_OR_RETURN(options.mode, parseMode(*mode));
  }
  if (std::optional<std::string> matmul = env("XLA_FLAGTREE_MATMUL")) {
    JFT_ASSIGN_OR_RETURN(options.matmul, parseMatmulRoute(*matmul));
  }
  if (std::optional<std::string> conv = env("XLA_FLAGTREE_CONV")) {
    JFT_ASSIGN_OR_RETURN(options.conv, parseConvRoute(*conv));
  }
  if (std::optional<std::string> log = env("XLA_FLAGTREE_LOG")) {
    JFT_ASSIGN_OR_RETURN(options.log, parseSwitch("XLA_FLAGTREE_LOG", *log));
  }
  if (std::optional<std::string> horizontal = env("XLA_FLAGTREE_HORIZONTAL")) {
    JFT_ASSIGN_OR_RETURN(options.horizontal,
                         parseSwitch("XLA_FLAGTREE_HORIZONTAL", *horizontal));
  }
  if (std::optional<std::string> attention = env("XLA_FLAGTREE_ATTENTION")) {
    JFT_ASSIGN_OR_RETURN(options.attention,
                         parseSwitch("XLA_FLAGTREE_ATTENTION", *attention));
  }
  if (std::optional<std::string> recompute = env("XLA_FLAGTREE_RECOMPUTE")) {
    JFT_ASSIGN_OR_RETURN(options.recompute,
                         parseSwitch("XLA_FLAGTREE_RECOMPUTE", *recompute));
  }
  if (std::optional<std::string> sort = env("XLA_FLAGTREE_SORT_REGISTERS")) {
    JFT_ASSIGN_OR_RETURN(options.sort_registers,
                         parseSwitch("XLA_FLAGTREE_SORT_REGISTERS", *sort));
  }
  if (std::optional<std::string> fail = env("XLA_FLAGTREE_FAIL_KERNELS"))
    options.fail_kernels = commaList(*fail);
  if (std::optional<std::string> text = env("XLA_FLAGS")) {
    JFT_ASSIGN_OR_RETURN(XlaFlags flags, parseXlaFlags(*text));
    options.dump_dir = std::move(flags.dump_to);
    options.autotune_level = flags.autotune_level;
    options.exclude_nondeterministic_ops = flags.exclude_nondeterministic_ops;
    options.unknown_flags = std::move(flags.unknown);
  }
  return options;
}

StatusOr<Options> Options::fromEnvironment() {
  StatusOr<Options> options = fromEnvironment(processEnv);
  // Once per process: a client is created per backend initialisation, and the
  // same warning again says nothing new.
  static std::atomic<bool> warned{false};
  if (options.isOk() && !options->unknown_flags.empty() && !warned.exchange(true)) {
    std::string list;
    for (const std::string& flag : options->unknown_flags) list += " " + flag;
    std::cerr << "jax-flagtree: XLA_FLAGS entries this plugin ignores:" << list << "\n";
  }
  return options;
}

}  // namespace jft::compiler
