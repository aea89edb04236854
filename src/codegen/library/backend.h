// The library backends (codegen/backend.h): a kLibrary group as one library
// call (library_calls.h) with the kernels that move its operands, made by the
// kernel backend it is given; a kCollective group as one collective or
// participant-id thunk (collective_call.h); a kCustomCall group as one FFI
// handler call (ffi_call.h) with the kernels that copy its buffers into and
// out of the layouts it asks for.
#pragma once

#include "codegen/backend.h"
#include "codegen/library/library_calls.h"
#include "passes/collective_form.h"

namespace jft::codegen::library {

class LibraryBackend final : public Backend {
 public:
  // `kernels` lowers the operand permutations (one-op loop groups of scratch
  // functions); it must outlive this backend.
  LibraryBackend(const Backend& kernels, LibraryContext context)
      : kernels_(kernels), context_(context) {}
  std::vector<fusion::UnsupportedOp> rejects(const ir::Module& module,
                                             const ir::Function& scope,
                                             const fusion::Plan& plan) const override;
  StatusOr<GroupCode> lower(ir::Module& module, const ir::Function& scope,
                            const fusion::Plan& plan, size_t g) const override;

 private:
  const Backend& kernels_;
  LibraryContext context_;
};

class CollectiveBackend final : public Backend {
 public:
  explicit CollectiveBackend(passes::ParticipantGrid grid) : grid_(grid) {}
  StatusOr<GroupCode> lower(ir::Module& module, const ir::Function& scope,
                            const fusion::Plan& plan, size_t g) const override;

 private:
  passes::ParticipantGrid grid_;
};

class FfiBackend final : public Backend {
 public:
  // `kernels` lowers the layout copies, as LibraryBackend's.
  explicit FfiBackend(const Backend& kernels) : kernels_(kernels) {}
  StatusOr<GroupCode> lower(ir::Module& module, const ir::Function& scope,
                            const fusion::Plan& plan, size_t g) const override;

 private:
  const Backend& kernels_;
};

}  // namespace jft::codegen::library
