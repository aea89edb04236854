// The kernels a library call needs around it (operand permutations, column-
// major copies, a convolution's patches): each is a scratch function
// {ops..., return} of its own whose ops form one TTIR loop group, named after
// the library group that owns it.
#pragma once

#include <string>
#include <vector>

#include "codegen/library/library_calls.h"
#include "fusion/fusion.h"
#include "ir/module.h"

namespace jft::codegen::library {

// Appends ops to one scratch function and closes it as a kernel.
class ScratchKernel {
 public:
  // Named "<owner's name>_<suffix>", reading `inputs`; its ops carry `op`'s
  // location.
  ScratchKernel(ir::Module& module, const fusion::Fusion& owner, const ir::Op& op,
                const std::string& suffix, std::vector<ir::ValueId> inputs);

  // One op writing a new value of `type`, or `result` when `fresh` is false.
  ir::ValueId add(ir::OpKind kind, std::vector<ir::ValueId> operands,
                  const ir::Type& type, ir::NamedAttrs attrs = {}, ir::ValueId result = 0,
                  bool fresh = true);

  // A tensor of `dims` whose elements are all `value` (a scalar constant
  // broadcast, so no literal of the whole shape is held).
  ir::ValueId splat(ir::ElementType element, int64_t value,
                    const std::vector<int64_t>& dims);

  // `x` permuted so that result dim i is x's dim perm[i], into `result` when
  // given (else a new value); x itself for the identity without `result`.
  ir::ValueId transpose(ir::ValueId x, const std::vector<int64_t>& perm,
                        ir::ValueId result = 0);

  // Returns `result` and appends the kernel to `kernels`.
  void finish(ir::ValueId result, std::vector<OperandTranspose>& kernels);

 private:
  ir::Module& module_;
  const fusion::Fusion& owner_;
  ir::LocId loc_;
  OperandTranspose t_;
};

}  // namespace jft::codegen::library
