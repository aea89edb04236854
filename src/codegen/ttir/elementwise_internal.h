// Internal to the elementwise emitter: one entry point per family of ops,
// each in its own file. Operands arrive in register types, already of one
// shape; each returns the result in the register type of `result`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "codegen/ttir/ttir_writer.h"
#include "ir/attribute.h"
#include "ir/element_type.h"
#include "ir/op_kind.h"

namespace jft::codegen::ttir::ew {

// Arithmetic and math on floats (elementwise_float.cc).
Value emitFloatOp(TtirWriter& w, ir::OpKind kind, ir::ElementType element,
                  const std::vector<Value>& operands);
// Arithmetic, bitwise, shifts and counts on integers and pred
// (elementwise_integer.cc).
Value emitIntegerOp(TtirWriter& w, ir::OpKind kind, ir::ElementType element,
                    const std::vector<Value>& operands);
// compare, select, clamp, maximum/minimum of every type (elementwise_compare.cc).
Value emitCompare(TtirWriter& w, ir::ComparisonDirection direction,
                  ir::ComparisonType type, ir::ElementType element, const Value& a,
                  const Value& b);
Value emitMaxMin(TtirWriter& w, bool maximum, ir::ElementType element, const Value& a,
                 const Value& b);
Value emitClamp(TtirWriter& w, ir::ElementType element, const Value& lo, const Value& x,
                const Value& hi);
Value emitSelect(TtirWriter& w, const Value& pred, const Value& a, const Value& b);
// convert and bitcast_convert (elementwise_convert.cc).
Value emitConvert(TtirWriter& w, ir::ElementType from, ir::ElementType to,
                  const Value& v);
Value emitBitcastConvert(TtirWriter& w, ir::ElementType from, ir::ElementType to,
                         const Value& v);

// reduce_precision of f16, bf16, f32 or f64 (elementwise_reduce_precision.cc).
Value emitReducePrecision(TtirWriter& w, ir::ElementType element, const Value& x,
                          int64_t exponent_bits, int64_t mantissa_bits);

}  // namespace jft::codegen::ttir::ew
