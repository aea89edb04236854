// The TTIR kernels around a convolution's product, each a scratch function of
// existing StableHLO ops that the loop emitter runs (library_calls.h's
// OperandTranspose):
//
//  - patches: P[group, m roles..., k roles...] (conv_form.h's roles) from the
//    lhs. The lhs is padded (edge padding clamped at 0, interior padding
//    lhs_dilation - 1, zeros), then one gather picks, for every output
//    position o and window position w of each spatial dim, the padded lhs at
//    o * stride + w' * rhs_dilation + max(-pad_lo, 0), w' = w or (window - 1 - w)
//    under window_reversal; its start indices are iota arithmetic computed in
//    the kernel. A reshape splits the grouped dim (input feature for
//    feature groups, batch for batch groups) into [group, per group] and a
//    transpose puts the roles in the product's order.
//  - rhs: the kernel permuted so its window and input feature dims lead and
//    the output feature is innermost.
//  - output: the product's [group, batch, output spatial..., feature per
//    group] temp moved into the result's layout.
#pragma once

#include <vector>

#include "codegen/library/conv_form.h"
#include "codegen/library/library_calls.h"
#include "fusion/fusion.h"
#include "ir/module.h"

namespace jft::codegen::library {

// Adds the patches kernel to `kernels`; returns P's value.
ir::ValueId addPatchesKernel(ir::Module& module, const fusion::Fusion& owner,
                             const ir::Op& conv, const ConvForm& form,
                             const std::vector<int64_t>& m_roles,
                             const std::vector<int64_t>& k_roles,
                             std::vector<OperandTranspose>& kernels);

// Adds a kernel transposing the rhs by `permutation`; returns the new value.
ir::ValueId addRhsKernel(ir::Module& module, const fusion::Fusion& owner,
                         const ir::Op& conv, const std::vector<int64_t>& permutation,
                         std::vector<OperandTranspose>& kernels);

// Adds a kernel reversing the rhs along `reverse` (rhs dims), then
// transposing it by `permutation` (empty: none; not the identity); at least
// one of them is not empty. Returns the new value.
ir::ValueId addRhsFilterKernel(ir::Module& module, const fusion::Fusion& owner,
                               const ir::Op& conv, const std::vector<int64_t>& reverse,
                               const std::vector<int64_t>& permutation,
                               std::vector<OperandTranspose>& kernels);

// A temp holding the result's dims in `order` (row-major) for a library call
// to write, and the kernel transposing it into the result; returns the temp.
ir::ValueId addResultKernel(ir::Module& module, const fusion::Fusion& owner,
                            const ir::Op& conv, const std::vector<int64_t>& order,
                            std::vector<OperandTranspose>& kernels);

// A temp of type [group, batch, output spatial..., feature per group] for
// the product to write, and the kernel moving it into the result.
ir::ValueId addOutputKernel(ir::Module& module, const fusion::Fusion& owner,
                            const ir::Op& conv, const ConvForm& form,
                            std::vector<OperandTranspose>& kernels);

}  // namespace jft::codegen::library
