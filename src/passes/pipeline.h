// The pass pipeline run before fusion, in one readable function:
//
//   inline, collectives, syrk_expand,        once
//   (collectives: collectives.h for one participant,
//    collectives_spmd.h for several)
//   integer_dot, float8_dot, bitcast_widths,
//   rng_expand, complex_sort
//   canonicalize, simplify, cse, dce         repeated until a round changes
//                                            nothing, at most max_rounds times
//
// Each pass is timed and recorded as changed or unchanged. With `verify`, the
// module is verified after every pass and the first failure is returned
// (INTERNAL: a pass broke valid IR) naming the pass; the input is verified
// first (INVALID_ARGUMENT: the input was already broken). With `dump`, the
// callback receives each pass's record and the printed module after it
// (printModule), or no text when the pass changed nothing.
//
// Before: the module verifies. After: it verifies, computes the same values,
// and holds no call (see inline_calls.h for composites), no collective and
// no cusolver_syrk_ffi call.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ir/module.h"
#include "passes/collective_form.h"
#include "passes/inline_calls.h"
#include "support/status.h"

namespace jft::passes {

struct PassRecord {
  std::string pass;  // "inline", "collectives", ..., "canonicalize", "dce"
  int round = 0;     // 0 for inline, 1.. for the repeated passes
  bool changed = false;
  std::chrono::nanoseconds duration{0};
};

struct PipelineOptions {
  bool verify = false;
  int max_rounds = 8;
  // The participants the program runs over (num_replicas x num_partitions).
  // With one, collectives become ordinary ops (collectives.h); with more,
  // they take their canonical form for the collective route
  // (collectives_spmd.h). Fewer than one: INVALID_ARGUMENT.
  ParticipantGrid grid;
  InlineOptions inlining;
  // Called after each pass; `module_text` is empty when the pass changed
  // nothing ("(unchanged)").
  std::function<void(const PassRecord& record, const std::string& module_text)> dump;
};

struct PipelineReport {
  std::vector<PassRecord> passes;  // in the order they ran
  int rounds = 0;                  // rounds of the repeated passes that ran
  bool reached_fixed_point = false;
};

StatusOr<PipelineReport> runPasses(ir::Module& module,
                                   const PipelineOptions& options = {});

// One line per pass: "round 1 cse: changed (0.12 ms)"; for logs and dumps.
std::string describeReport(const PipelineReport& report);

}  // namespace jft::passes
