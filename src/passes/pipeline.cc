#include "passes/pipeline.h"

#include <cstdio>
#include <functional>
#include <utility>

#include "ir/printer.h"
#include "ir/verifier.h"
#include "passes/approx_top_k.h"
#include "passes/bitcast_widths.h"
#include "passes/canonicalize.h"
#include "passes/collectives.h"
#include "passes/collectives_spmd.h"
#include "passes/complex_iota.h"
#include "passes/complex_reduce.h"
#include "passes/complex_scatter.h"
#include "passes/complex_sort.h"
#include "passes/cse.h"
#include "passes/dce.h"
#include "passes/float8_dot.h"
#include "passes/half_solvers.h"
#include "passes/integer_dot.h"
#include "passes/rng_expand.h"
#include "passes/simplify.h"
#include "passes/sink_constants.h"
#include "passes/syrk_expand.h"

namespace jft::passes {
namespace {

class PassRunner {
 public:
  PassRunner(ir::Module& module, const PipelineOptions& options)
      : module_(module), options_(options) {}

  // Runs `pass` (returning StatusOr<bool> or bool), then records, verifies
  // and dumps.
  template <typename Pass>
  StatusOr<bool> run(const std::string& name, int round, Pass&& pass) {
    const auto start = std::chrono::steady_clock::now();
    bool changed = false;
    if constexpr (std::is_same_v<decltype(pass(module_)), bool>) {
      changed = pass(module_);
    } else {
      JFT_ASSIGN_OR_RETURN(changed, pass(module_));
    }
    PassRecord record{name, round, changed, std::chrono::steady_clock::now() - start};
    report_.passes.push_back(record);
    if (options_.verify) {
      Status verified = ir::verifyModule(module_);
      if (!verified.isOk())
        return internalError("the module no longer verifies after pass " + name + ": " +
                             verified.message());
    }
    if (options_.dump) options_.dump(record, changed ? ir::printModule(module_) : "");
    return changed;
  }

  PipelineReport& report() { return report_; }

 private:
  ir::Module& module_;
  const PipelineOptions& options_;
  PipelineReport report_;
};

}  // namespace

StatusOr<PipelineReport> runPasses(ir::Module& module, const PipelineOptions& options) {
  if (options.verify) JFT_RETURN_IF_ERROR(ir::verifyModule(module));
  const ParticipantGrid& grid = options.grid;
  if (grid.replicas < 1 || grid.partitions < 1)
    return invalidArgument(
        "a program needs at least one replica and one partition, not " +
        std::to_string(grid.replicas) + " x " + std::to_string(grid.partitions));
  PassRunner runner(module, options);
  // Round 0: each expansion once, in this order, before the repeated rounds.
  using Expansion = std::function<StatusOr<bool>(ir::Module&)>;
  auto plain = [](bool (*pass)(ir::Module&)) -> Expansion {
    return [pass](ir::Module& m) -> StatusOr<bool> { return pass(m); };
  };
  const std::pair<const char*, Expansion> expansions[] = {
      {"inline", [&](ir::Module& m) { return inlineCalls(m, options.inlining); }},
      // Closed regions (comparators, combiners) get their own copies of the
      // constants JAX hoisted out of them, before anything else reads them.
      {"sink_constants", plain(sinkConstantsIntoClosedRegions)},
      // Collectives of one participant are plain ops; over several they take
      // the canonical form the collective route runs (after inlining, so those
      // of called functions are in place; before the rest, which may simplify
      // what they leave).
      {"collectives",
       [&](ir::Module& m) -> StatusOr<bool> {
         return grid.participants() == 1 ? lowerSingleParticipantCollectives(m)
                                         : lowerCollectivesForParticipants(m, grid);
       }},
      // JAX's cuBLAS syrk call (symmetric_product) as a product and a masked
      // epilogue, before integer_dot and float8_dot look at products.
      {"syrk_expand", expandSyrkCalls},
      // ApproxTopK as XLA computes it off TPU: an exact top-k by sorting.
      {"approx_top_k", expandApproxTopK},
      // Integer products no library GEMM computes become a multiply and a
      // reduce before the rounds, so they simplify and fuse like other ops.
      {"integer_dot", plain(lowerIntegerDots)},
      // float8 products on 16-bit operands, which the library multiplies.
      {"float8_dot", plain(widenFloat8Dots)},
      // 16-bit triangular solves and Choleskys in f32, which the library solves.
      {"half_solvers", plain(widenHalfSolvers)},
      // Width-changing bitcasts and rng_bit_generator (as XLA's GPU backend
      // expands it) as integer ops that fuse like any others.
      {"bitcast_widths", plain(expandWidthChangingBitcasts)},
      {"rng_expand", plain(expandRngBitGenerators)},
      {"complex_iota", plain(splitComplexIotas)},
      // Complex sort keys as their parts (the sort family keeps real lanes).
      {"complex_sort", plain(splitComplexSorts)},
      // Complex reduces other than one add or multiply (max, min) by parts.
      {"complex_reduce", plain(splitComplexReduces)},
      // Complex scatters combining by more than add, when updates cannot
      // collide: gather, combine, set (the scatter family combines per part).
      {"complex_scatter", plain(expandComplexScatters)},
  };
  for (const auto& [name, expand] : expansions) {
    JFT_ASSIGN_OR_RETURN(bool changed, runner.run(name, 0, expand));
    (void)changed;
  }
  PipelineReport& report = runner.report();
  for (int round = 1; round <= options.max_rounds; ++round) {
    report.rounds = round;
    bool changed = false;
    JFT_ASSIGN_OR_RETURN(bool canonicalized,
                         runner.run("canonicalize", round, canonicalize));
    JFT_ASSIGN_OR_RETURN(bool simplified, runner.run("simplify", round, simplifyAlgebra));
    JFT_ASSIGN_OR_RETURN(bool merged,
                         runner.run("cse", round, eliminateCommonSubexpressions));
    JFT_ASSIGN_OR_RETURN(bool removed, runner.run("dce", round, eliminateDeadCode));
    changed = canonicalized || simplified || merged || removed;
    if (!changed) {
      report.reached_fixed_point = true;
      break;
    }
  }
  return std::move(report);
}

std::string describeReport(const PipelineReport& report) {
  std::string text;
  for (const PassRecord& record : report.passes) {
    char line[160];
    const double ms = std::chrono::duration<double, std::milli>(record.duration).count();
    std::snprintf(line, sizeof line, "round %d %s: %s (%.3f ms)\n", record.round,
                  record.pass.c_str(), record.changed ? "changed" : "unchanged", ms);
    text += line;
  }
  return text;
}

}  // namespace jft::passes
