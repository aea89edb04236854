// StableHLO elementwise semantics in TTIR, shared by every kernel family.
//
// Each function takes operands already materialised on one tile (all of the
// same shape) and appends the ops computing the result on that tile. Numerics
// are StableHLO's: an op on bf16/f16 (and f8) computes in f32 and rounds to its
// result type before returning, as unfused StableHLO would; integer ops pick
// the signed or unsigned TTIR op from the element type; shifts by too many bits,
// division by zero and INT_MIN / -1 give StableHLO's defined results.
#pragma once

#include <string>
#include <vector>

#include "codegen/ttir/ttir_writer.h"
#include "ir/module.h"
#include "support/status.h"

namespace jft::codegen::ttir {

// True when emitElementwise below handles `op` (kind and element types).
// `why` (may be null) receives the reason when it does not.
bool isEmittableElementwise(const ir::Module& module, const ir::Op& op, std::string* why);

// Whether a float op of this kind becomes a call of the backend's math library
// (libdevice / OCML), whose body is inlined into the kernel: such calls
// dominate a kernel's code size and so its compile time.
bool callsMathLibrary(ir::OpKind kind);

// Elementwise ops: unary/binary/ternary arithmetic and math, compare, select,
// clamp, convert, bitcast_convert (same bit width), and/or/xor/not, shifts,
// popcnt, count_leading_zeros, is_finite, sign, round_*... `operands` are in
// register types of the op's operand element types; the result is in the
// register type of the op's result element type, on the same tile shape.
StatusOr<Value> emitElementwise(TtirWriter& writer, const ir::Module& module,
                                const ir::Op& op, const std::vector<Value>& operands);

// A constant of `element` splatted over `shape` (empty shape: a scalar);
// `bytes` is one element in storage form (ir DenseElements encoding).
Value emitSplatConstant(TtirWriter& writer, ir::ElementType element,
                        const std::vector<int64_t>& shape, std::string_view bytes);

// Converts a value loaded from memory (memoryType) to its register type and
// back for storing: only pred differs (i8 <-> i1).
Value loadedToRegister(TtirWriter& writer, ir::ElementType element, const Value& loaded);
Value registerToStored(TtirWriter& writer, ir::ElementType element, const Value& value);

// The body of a tt.reduce combiner for a StableHLO reduce region: given the
// region (block args: n accumulators then n new values, scalars) and scalar
// Values bound to its args, writes the region's ops and returns the n results.
// The args may also be tiles of one shape (the region applied lane by lane);
// its constants are then splatted to that shape.
// Fails with UNIMPLEMENTED for ops a combiner cannot hold.
StatusOr<std::vector<Value>> emitScalarRegion(TtirWriter& writer,
                                              const ir::Module& module,
                                              const ir::Region& region,
                                              const std::vector<Value>& args);

}  // namespace jft::codegen::ttir
