// The backend of each route for one compile (codegen/backend.h), set up from
// the options and the autotuner's decisions, and the lowering stage that asks
// them for every group of the program.
#pragma once

#include <functional>
#include <vector>

#include "codegen/library/backend.h"
#include "codegen/native/backend.h"
#include "codegen/ttir/backend.h"
#include "compiler/compiler.h"
#include "compiler/horizontal_batches.h"
#include "compiler/matmul_autotune.h"
#include "compiler/native_routing.h"
#include "compiler/program_assembly.h"
#include "passes/collective_form.h"

namespace jft::compiler {

class Backends {
 public:
  Backends(const Options& options, passes::ParticipantGrid grid,
           const AutotuneResult& tuned);
  Backends(const Backends&) = delete;  // library_ refers to ttir_ or native_
  Backends& operator=(const Backends&) = delete;

  // The backend lowering groups of `route`; null for the routes the
  // assembler runs itself (kNone, kControl) and those without one yet.
  const codegen::Backend* of(fusion::Route route) const;

  // The mode's moves to the native route in one planned body
  // (native_routing.h); call it before rejects().
  NativeReasons routeNative(const ir::Module& module, const ir::Function& scope,
                            fusion::Plan& plan) const;

  // Every backend's rejects (codegen::Backend::rejects) for `plan`.
  std::vector<fusion::UnsupportedOp> rejects(const ir::Module& module,
                                             const ir::Function& scope,
                                             const fusion::Plan& plan) const;

  Mode mode() const { return mode_; }
  const codegen::native::NativeBackend& native() const { return native_; }

 private:
  Mode mode_;
  codegen::ttir::TtirBackend ttir_;
  codegen::native::NativeBackend native_;
  // Its operand kernels come from native_ under XLA_MODE=native (or
  // Options::native_library_operands), else ttir_.
  codegen::library::LibraryBackend library_;
  codegen::library::CollectiveBackend collective_;
  codegen::library::FfiBackend ffi_;  // its layout copies: as library_'s
};

// Fills `groups` of `top` (the body of `function`) and of every nested
// region (parents before children) with its groups' code, and returns all their kernels
// in that order, each GroupCode's first_kernel its index there; `on_kernel` sees each
// kernel as it is made (dumps). With `horizontal`, each body's runs of small
// loop groups are combined first (horizontal_batches.h).
StatusOr<std::vector<codegen::ttir::TtirKernel>> lowerProgram(
    ir::Module& module, const ir::Function& function, RegionCode& top,
    const Backends& backends, const HorizontalLimits* horizontal,
    const std::function<void(const codegen::ttir::TtirKernel&)>& on_kernel);

}  // namespace jft::compiler
