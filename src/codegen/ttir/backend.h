// The TTIR backend (codegen/backend.h): a kTtir group as its TTIR kernels
// (one, or several launched in order that share scratch buffers).
#pragma once

#include "codegen/backend.h"
#include "codegen/ttir/kernel.h"

namespace jft::codegen::ttir {

class TtirBackend final : public Backend {
 public:
  explicit TtirBackend(EmitOptions options) : options_(std::move(options)) {}
  StatusOr<GroupCode> lower(ir::Module& module, const ir::Function& scope,
                            const fusion::Plan& plan, size_t g) const override;

 private:
  EmitOptions options_;
};

}  // namespace jft::codegen::ttir
