// StableHLO elementwise semantics as CUDA C expressions on one element.
//
// Operands arrive as expressions in the register types of their element
// types (c_types.h); each op declares its result with the writer and returns
// its name. Floats narrower than f32 compute in f32 and round to their type
// after every op, as unfused StableHLO does (and XLA's GPU backend); signed
// integer add/subtract/multiply/negate wrap through the unsigned type (no
// undefined overflow); division, remainder and shifts give StableHLO's (XLA's)
// defined results at zero divisors, INT_MIN / -1 and out-of-range counts
// (prelude.h); float maximum/minimum propagate NaN.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "codegen/native/cuda_writer.h"
#include "ir/module.h"
#include "support/status.h"

namespace jft::codegen::native {

// Whether emitElementwise takes `op` (kind, operand count and element
// types); `why` (may be null) receives the reason when it does not.
bool isNativeElementwise(const ir::Module& module, const ir::Op& op, std::string* why);

StatusOr<std::string> emitElementwise(CudaWriter& writer, const ir::Module& module,
                                      const ir::Op& op,
                                      const std::vector<std::string>& operands);

// One element of a literal (DenseElements storage bytes) as an expression of
// the element's register type; exact for every value (NaN payloads, -0, inf).
std::string literal(ir::ElementType element, std::span<const uint8_t> bytes);

// Internal to the scalar emitter's files.
namespace scalar {
std::string emitConvert(CudaWriter& w, ir::ElementType from, ir::ElementType to,
                        const std::string& x);
std::string emitBitcast(CudaWriter& w, ir::ElementType from, ir::ElementType to,
                        const std::string& x);
std::string emitCompare(CudaWriter& w, const ir::Op& op, ir::ElementType element,
                        const std::string& a, const std::string& b);
// Ops with a complex operand or result (scalar_complex.cc): which are taken,
// and their values.
bool complexTakes(const ir::Op& op, std::string* why);
std::string emitComplexConvert(CudaWriter& w, ir::ElementType from, ir::ElementType to,
                               const std::string& x);
std::string emitComplexOp(CudaWriter& w, const ir::Op& op, ir::ElementType data,
                          ir::ElementType result, const std::vector<std::string>& x);
}  // namespace scalar

}  // namespace jft::codegen::native
