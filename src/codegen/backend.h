// The one interface a code generation backend implements: what it makes of
// one planned group. The compiler hands each group to the backend of its
// route; the assembler (compiler/program_assembly.h) gives the IR values slots
// and the route report is read from what came back, so a new backend is one
// more implementation of this, not a change to the pipeline.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "codegen/ttir/kernel.h"
#include "fusion/fusion.h"
#include "ir/module.h"
#include "runtime/program.h"
#include "support/status.h"

namespace jft::codegen {

// A runtime thunk whose buffers are IR values: the assembler gives each read
// and written value a slot (then a temp of `workspace_bytes` for the call
// alone, when not 0) and writes the slots into the thunk's buffer fields.
struct Call {
  runtime::Thunk thunk;
  std::vector<ir::ValueId> reads;
  std::vector<ir::ValueId> writes;
  uint64_t workspace_bytes = 0;
  // Writes updated in place by the callee (a custom call's output/operand
  // alias): write `write` starts as a copy of read `read` (`bytes` long), and
  // the thunk is handed the write's slot for both.
  struct InPlace {
    size_t read = 0;
    size_t write = 0;
    uint64_t bytes = 0;
  };
  std::vector<InPlace> in_place;
};

// One group's code: its kernels, launched in order (the ones from index
// `after_call` on run after `call`), and/or one call.
struct GroupCode {
  std::vector<ttir::TtirKernel> kernels;
  size_t after_call = 0;  // kernels before the call; without a call, unused
  std::optional<Call> call;
  // The route report's column for the call ("cublaslt m=8 n=16 k=32 ...");
  // a kernel's tile is its own.
  std::string text;
  // Index of kernels[0] in runtime::Program::kernels, set by the compiler
  // when it collects every group's kernels; the rest follow in order.
  int first_kernel = -1;
  // The combined launch (compiler/horizontal_batches.h) this group's kernel
  // joined: the run's last group holds that kernel, the others hold none and
  // run nothing themselves. `unjoined` keeps the group's own kernel, so that
  // a combined launch that fails to compile can be split back.
  std::string joined;
  std::vector<ttir::TtirKernel> unjoined;

  bool empty() const { return kernels.empty() && !call; }
};

class Backend {
 public:
  virtual ~Backend() = default;
  // The ops of `plan`'s groups on this backend's route that it cannot lower,
  // each with the reason; asked for every body before anything is lowered,
  // so that a failing compile lists them all.
  virtual std::vector<fusion::UnsupportedOp> rejects(const ir::Module& module,
                                                     const ir::Function& scope,
                                                     const fusion::Plan& plan) const {
    (void)module, (void)scope, (void)plan;
    return {};
  }
  // The code of `plan.fusions[g]`, a group of `scope`. May add values to
  // `module` (references into its value table do not survive the call).
  virtual StatusOr<GroupCode> lower(ir::Module& module, const ir::Function& scope,
                                    const fusion::Plan& plan, size_t g) const = 0;
};

}  // namespace jft::codegen
