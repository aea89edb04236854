// The kernels of a Pallas group (fusion::Family::kPallas): the Triton module
// the custom call carries, compiled as given, launched on the configured
// grid with one pointer per operand then one per result.
//
// A result aliased to an operand (output_operand_aliases) must share the
// operand's memory, which our buffer assignment never does between a
// kernel's inputs and outputs. So a byte copy kernel first copies the operand
// into the result's buffer, and the Pallas kernel then gets the result's
// buffer at both parameter positions: it reads and writes one memory, as
// under XLA. (The operand keeps its value for its other readers.)
#pragma once

#include <vector>

#include "codegen/ttir/kernel.h"

namespace jft::codegen::ttir {

// INVALID_ARGUMENT (from fusion::pallasCallOf) for a bad configuration.
StatusOr<std::vector<TtirKernel>> emitPallasKernels(const ir::Module& module,
                                                    const ir::Function& function,
                                                    const fusion::Fusion& fusion);

// The TTIR of a kernel copying `bytes` bytes from its first pointer
// parameter to its second, 1024 bytes per program; `name` is its entry.
std::string byteCopyKernel(const std::string& name, uint64_t bytes);
uint32_t byteCopyPrograms(uint64_t bytes);

}  // namespace jft::codegen::ttir
