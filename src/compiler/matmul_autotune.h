// The autotuner of dot_general (--xla_gpu_autotune_level >= 1 with a
// Measurer): for each dot whose route is open, measure the library route and
// a few TTIR matmul tiles on the device and keep the fastest.
//
// Open: XLA_FLAGTREE_MATMUL=auto and the TTIR matmul family computes the dot
// (fusion::matmulFormOf), which it does with the library's numerics: f16/bf16
// operands, f32 under HIGHEST (both exact f32) and f32 under DEFAULT/HIGH
// (the TTIR kernel rounds operand tiles to TF32 to nearest as cuBLASLt does,
// codegen/ttir/tf32_rounding.h). Levels 1 to 4 run the same bounded search
// (matmul_candidates.h).
//
// Each candidate is the dot alone, built as a one-op module over parameters
// of the dot's operand types and layouts and compiled by the whole pipeline
// (the library candidate with XLA_FLAGTREE_MATMUL=library, a TTIR one with
// its tile fixed), the candidates in parallel threads sharing the kernel
// compiler's worker pool; then each is timed by the Measurer, one after
// another. The fused epilogue is not part of the measurement: a dot that
// goes TTIR still takes its epilogue, which only adds to its lead.
//
// The winner is cached (autotune_cache.h). A candidate that fails to compile
// or run is skipped (a line with XLA_FLAGTREE_LOG=1); when every TTIR one
// fails the library wins; when nothing could be measured the cost model
// decides as without autotuning. Nothing here fails the user's compile.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/autotune_cache.h"
#include "compiler/compiler.h"
#include "compiler/matmul_candidates.h"
#include "compiler/measurer.h"
#include "ir/module.h"

namespace jft::kernel_compiler {
class KernelCompiler;
}

namespace jft::compiler {

// Decisions by fusion::matmulSignature, for the planner and the emitter.
struct AutotuneResult {
  std::map<std::string, fusion::Route> routes;
  std::map<std::string, codegen::ttir::MatmulTile> tiles;  // TTIR winners
  std::map<std::string, std::string> notes;                // autotuneNote per dot
  // What was measured or read, a line each (every candidate's time or why it
  // was skipped): the log lines of XLA_FLAGTREE_LOG=1, dumped as autotune.txt.
  std::string transcript;
};

bool autotunable(const ir::Module& module, const ir::Op& op, const Options& options);

// The fastest candidate that ran (`micros[i]` of `candidates[i]`; nullopt
// where it failed), the first on ties; nullopt when none ran.
std::optional<MatmulDecision> pickWinner(
    const std::vector<MatmulCandidate>& candidates,
    const std::vector<std::optional<double>>& micros);

// "autotuned: ttir 128x64x64 w4 s3 (12.5 us) over 7 candidates", and
// "autotuned (cached): ..." for a decision read from the cache.
std::string autotuneNote(const MatmulDecision& decision);

// Every open dot of `function` and of the regions nested in it, each
// signature once. `kernel_compiler` may be null (the candidates' programs
// then have no binaries: tests with a fake Measurer). The cache directory is
// options.autotune_cache_dir, else kernel_compiler::defaultCacheDir(); none usable:
// no cache.
AutotuneResult autotuneMatmuls(const ir::Module& module, const ir::Function& function,
                               const Options& options,
                               kernel_compiler::KernelCompiler* kernel_compiler,
                               Measurer& measurer);

}  // namespace jft::compiler
