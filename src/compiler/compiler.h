// The compiler pipeline: a StableHLO portable artifact in, a runtime::Program
// out, with the route report.
//
//   bytecode -> ir (frontend) -> passes -> fusion plan -> TTIR per kernel
//            (CUDA C on the native route) -> binaries (src/kernel_compiler;
//            NativeCompiler) -> buffer assignment -> Program
//
// Modes decide what goes to the native route and what happens to ops no
// route supports (see docs/architecture.md, Routes and modes). Every
// unsupported op is listed in one error, each with its types and the user's
// source line.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "codegen/library/conv_library.h"
#include "codegen/ttir/tile_choice.h"
#include "compiler/cost_analysis.h"
#include "fusion/fusion.h"
#include "ir/type.h"
#include "kernel_compiler/compile_types.h"
#include "runtime/program.h"
#include "support/status.h"

namespace jft::kernel_compiler {
class KernelCompiler;
}
namespace jft::ir {
class Module;
}

namespace jft::compiler {

class Measurer;        // measurer.h
class NativeCompiler;  // native_compiler.h
// The convolution library the library backend asks (implemented by PJRT).
using ConvLibrary = codegen::library::ConvLibrary;

enum class Mode { kBackUnsupported, kFlOnly, kBackFail, kNative };

const char* modeName(Mode mode);  // "back_unsupported", "fl_only", ...
// INVALID_ARGUMENT naming the accepted values for anything else; empty text
// is the default mode.
StatusOr<Mode> parseMode(std::string_view text);

// XLA_FLAGTREE_MATMUL: auto, library or ttir (fusion::MatmulRoute);
// INVALID_ARGUMENT naming the accepted values for anything else; empty text
// is auto.
StatusOr<fusion::MatmulRoute> parseMatmulRoute(std::string_view text);
// XLA_FLAGTREE_CONV: auto, library, cudnn or ttir (fusion::ConvRoute), likewise.
StatusOr<fusion::ConvRoute> parseConvRoute(std::string_view text);

struct Options {
  Mode mode = Mode::kBackUnsupported;
  // XLA_FLAGTREE_MATMUL: where dot_general goes (the cost model, cuBLASLt, or
  // the TTIR matmul family wherever it can).
  fusion::MatmulRoute matmul = fusion::MatmulRoute::kAuto;
  // XLA_FLAGTREE_CONV: where convolution goes (the cost model; the library:
  // cuDNN where `conv_library` takes the convolution, else the patches kernel
  // + cuBLASLt; cudnn: the same, failing when cuDNN cannot be loaded; or the
  // TTIR implicit GEMM wherever it can).
  fusion::ConvRoute conv = fusion::ConvRoute::kAuto;
  // The device's convolution library (conv_library.h); null: none, every
  // library convolution takes the patches + GEMM route. Not part of the
  // fingerprint: like the measurer, it answers for the device compiled for.
  ConvLibrary* conv_library = nullptr;
  bool log = false;        // XLA_FLAGTREE_LOG=1: one line per kernel + summary (stderr)
  std::string dump_dir;    // --xla_dump_to
  int autotune_level = 0;  // --xla_gpu_autotune_level
  bool exclude_nondeterministic_ops = false;
  kernel_compiler::KernelTarget
      target;  // the device's (arch from its compute capability)
  // The participants the program is compiled for (PJRT's compile options).
  // With one in all, collectives become ordinary ops (passes/collectives.h);
  // with more, each collective is one runtime::CollectiveThunk and
  // replica_id / partition_id a runtime::ParticipantIdThunk (the collective
  // route: passes/collectives_spmd.h, collective_call.h). Part of the
  // fingerprint.
  int num_replicas = 1;
  int num_partitions = 1;
  std::vector<std::string> unknown_flags;  // XLA_FLAGS entries we do not honour

  // Autotuning (matmul_autotune.h): with autotune_level >= 1 and a measurer
  // for the device compiled for (PJRT gives one; tools and tests may), open
  // dots are measured and the winners cached under autotune_cache_dir (empty:
  // the kernel cache's directory). Without a measurer nothing is measured.
  // Not part of the fingerprint: the level is, and what is measured follows.
  Measurer* measurer = nullptr;
  std::string autotune_cache_dir;
  // Choices fixed by the caller, by fusion::matmulSignature: a route per dot
  // (under XLA_FLAGTREE_MATMUL=auto) and a TTIR tile per dot. The autotuner
  // compiles its candidates through them; measured winners join them.
  std::map<std::string, fusion::Route> matmul_routes;
  std::map<std::string, codegen::ttir::MatmulTile> matmul_tiles;

  // The native route's compiler (native_compiler.h) for the device compiled
  // for; null: none (tools, tests), and a program with native kernels then
  // fails when binaries are built, naming them. Not part of the fingerprint:
  // like the measurer, it answers for the device compiled for.
  NativeCompiler* native_compiler = nullptr;
  // XLA_FLAGTREE_FAIL_KERNELS (fault injection, for testing back_fail): a
  // TTIR kernel whose name contains one of these fails as if the kernel
  // compiler had failed it, without asking the compiler.
  std::vector<std::string> fail_kernels;
  // The library's operand kernels (transposes around solver and GEMM calls)
  // on the native route, as under XLA_MODE=native: back_fail's second plan
  // (compile.cc) sets it.
  bool native_library_operands = false;
  // XLA_FLAGTREE_HORIZONTAL=0 turns horizontal fusion off (runs of small loop
  // groups as one launch: horizontal_batches.h). Never under back_fail, whose
  // fallback is per group.
  bool horizontal = true;
  // The attention family (plain-jnp attention as one flash-attention kernel,
  // fusion/attention_form.h); XLA_FLAGTREE_ATTENTION=0 turns it off.
  bool attention = true;
  // XLA_FLAGTREE_RECOMPUTE=1: elementwise values every reader can recompute
  // cheaply are recomputed there instead of stored
  // (fusion::PlanOptions::recompute_elementwise).
  bool recompute = false;
  // XLA_FLAGTREE_SORT_REGISTERS=1: sorts do their partner distances below 32
  // in registers (codegen/ttir/sort_emitter.h). Off: Triton 3.6 refused its
  // kernels for rows of 1024 and more on the GPU.
  bool sort_registers = false;

  // Reads an environment variable; nullopt when unset.
  using EnvLookup = std::function<std::optional<std::string>(const char* name)>;

  // XLA_MODE, XLA_FLAGTREE_MATMUL, XLA_FLAGTREE_CONV, XLA_FLAGTREE_LOG,
  // XLA_FLAGTREE_FAIL_KERNELS, XLA_FLAGTREE_HORIZONTAL, XLA_FLAGTREE_ATTENTION,
  // XLA_FLAGTREE_SORT_REGISTERS and XLA_FLAGS from the environment;
  // INVALID_ARGUMENT for a bad value. Warns once per process on stderr about
  // unknown XLA_FLAGS entries.
  static StatusOr<Options> fromEnvironment();
  // The same from `env`, without the warning (tests, tools).
  static StatusOr<Options> fromEnvironment(const EnvLookup& env);
};

// One row per group of the fusion plan.
struct RouteEntry {
  std::string name;    // fusion name, also the kernel name
  std::string route;   // "ttir", "library", "copy", "none", ...
  std::string family;  // "loop", "reduction", ...
  std::string ops;     // "exp, add, broadcast_in_dim"
  std::string shapes;  // output types: "tensor<256xf32>"
  std::string tile;
  // The autotuner's decision for the group's dot (matmul_autotune.h's
  // autotuneNote), empty when nothing was measured.
  std::string autotune;
  // Why the mode sent a native group there ("TTIR cannot run it: ...",
  // "the TTIR kernel failed to compile: ...", "XLA_MODE=native"); empty on
  // other routes. Shown by the log line, not the table.
  std::string native_reason;
  double compile_seconds = 0;
  // Where a fresh compile's time went, per pipeline stage summed over the
  // group's kernels ("ttgir 1.20s, llir 0.40s, ..."); shown by the log line.
  std::vector<std::pair<std::string, double>> stage_seconds;
  bool cache_hit = false;
  bool compiled = false;  // a binary was built or found (false offline, and for kNone)
};

struct RouteReport {
  std::vector<RouteEntry> entries;
  std::string text() const;  // the table plus a per-route count summary
};

struct Executable {
  std::string name;         // the module's name ("jit_smoke")
  std::string fingerprint;  // hex SHA-256 of the input and the options that matter
  std::vector<ir::Type> parameter_types;  // of the entry function
  std::vector<ir::Type> output_types;
  // Where each lives for the caller: "device", or "pinned_host" where the
  // entry function says `mhlo.memory_kind = "pinned_host"` (a jit whose in/out
  // shardings name host memory); one per parameter / output.
  std::vector<std::string> parameter_memory_kinds;
  std::vector<std::string> output_memory_kinds;
  // The order in memory of each parameter / output as a minor-to-major list
  // of its dims (entry_layouts.h); empty where dense row-major.
  std::vector<std::vector<int64_t>> parameter_layouts;
  std::vector<std::vector<int64_t>> output_layouts;
  runtime::Program program;
  RouteReport report;
  ProgramCost cost;  // flops and transcendentals (cost_analysis.h)
};

// What the pipeline produced on the way, for `jft compile --emit` and dumps.
struct Stages {
  std::string ir_after_passes;    // printed module
  std::string plan;               // fusion::describePlan
  std::vector<std::string> ttir;  // one module per TTIR kernel
  std::vector<std::string> kernel_names;
  std::vector<std::string> cuda;  // one translation unit per native kernel
  std::vector<std::string> cuda_names;
};

// `kernel_compiler` null: stop after code generation (the Program then has
// no kernels and the returned Executable must not be run; native kernels are
// not compiled either); `stages` may be null.
StatusOr<Executable> compile(std::string_view bytecode, const Options& options,
                             kernel_compiler::KernelCompiler* kernel_compiler,
                             Stages* stages = nullptr);

// The same for a module already in our IR (built with ir::Builder by tests
// and tools): the pipeline from the verifier on. The fingerprint and the
// dump folder are those of the printed module.
StatusOr<Executable> compileModule(ir::Module module, const Options& options,
                                   kernel_compiler::KernelCompiler* kernel_compiler,
                                   Stages* stages = nullptr);

}  // namespace jft::compiler
