// The native backend (codegen/backend.h): a kNative group as one CUDA C
// kernel (native_kernel.h), carried in the kernel record every route shares
// (codegen/ttir/kernel.h: `cuda` set, `ttir` empty) so that the runtime
// launches it like any other kernel.
#pragma once

#include "codegen/backend.h"
#include "codegen/native/native_kernel.h"

namespace jft::codegen::native {

class NativeBackend final : public Backend {
 public:
  explicit NativeBackend(NativeOptions options) : options_(options) {}

  // OK when the emitter can express `group` (a group of `scope`), else its
  // UNIMPLEMENTED reason naming the op.
  Status accepts(const ir::Module& module, const ir::Function& scope,
                 const fusion::Fusion& group) const;

  // The ops of the kNative groups the emitter refuses, each with the
  // emitter's reason. Groups holding an op of plan.unsupported are left out:
  // that op is listed already, with the planner's reason.
  std::vector<fusion::UnsupportedOp> rejects(const ir::Module& module,
                                             const ir::Function& scope,
                                             const fusion::Plan& plan) const override;

  StatusOr<GroupCode> lower(ir::Module& module, const ir::Function& scope,
                            const fusion::Plan& plan, size_t g) const override;

 private:
  NativeOptions options_;
};

}  // namespace jft::codegen::native
