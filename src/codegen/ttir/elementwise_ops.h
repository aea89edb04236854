// Internal to the elementwise emitter: typed builders for the arith/math/tt
// ops it writes, and the rules shared by its files (compute types, rounding
// back, library calls). Not part of the contract with other emitters.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/ttir/ttir_writer.h"
#include "ir/element_type.h"
#include "ir/op_kind.h"

namespace jft::codegen::ttir::ew {

// `v` with another element type, same shape: the TTIR type string.
std::string retyped(const Value& v, std::string_view scalar);

Value unary(TtirWriter& w, std::string_view op, const Value& a);
Value binary(TtirWriter& w, std::string_view op, const Value& a, const Value& b);
Value ternary(TtirWriter& w, std::string_view op, const Value& a, const Value& b,
              const Value& c);
// arith.cmpf / arith.cmpi with a predicate keyword ("une", "slt"): an i1 value.
Value cmpf(TtirWriter& w, std::string_view predicate, const Value& a, const Value& b);
Value cmpi(TtirWriter& w, std::string_view predicate, const Value& a, const Value& b);
Value select(TtirWriter& w, const Value& cond, const Value& a, const Value& b);
// arith casts written "op %a : T to U" (extf, truncf, extsi, extui, trunci,
// sitofp, uitofp, fptosi, fptoui).
Value cast(TtirWriter& w, std::string_view op, const Value& a, std::string_view scalar);
// tt.bitcast between types of one bit width (arith.bitcast is not accepted
// by Triton's TTIR -> TTGIR conversion).
Value bitcast(TtirWriter& w, const Value& a, std::string_view scalar);
// tt.fp_to_fp: the only conversion Triton lowers for f8 types; narrowing
// rounds to nearest even.
Value fpToFp(TtirWriter& w, const Value& a, std::string_view scalar);
// tt.extern_elementwise of a function the backend links itself (libdevice,
// OCML): empty libname/libpath, pure.
Value externCall(TtirWriter& w, std::string_view symbol, const std::vector<Value>& args,
                 std::string_view result_scalar);

// Splat constants shaped like `like`.
Value constInt(TtirWriter& w, const Value& like, std::string_view scalar, int64_t value);
Value constBool(TtirWriter& w, const Value& like, bool value);
// A float given by its bit pattern in `scalar` (hex literal: exact for NaN,
// infinities and signed zeros).
Value constBits(TtirWriter& w, const Value& like, std::string_view scalar, uint64_t bits);
// f32 or f64 constant from a double (rounded to f32 for "f32").
Value constFloat(TtirWriter& w, const Value& like, std::string_view scalar, double value);
// A scalar (empty shape) value splatted to `shape`; others returned as is.
Value splatTo(TtirWriter& w, const Value& v, const std::vector<int64_t>& shape);

// Float arithmetic happens in f64 for f64 and in f32 for every narrower float;
// the result is rounded back to its own type after each op.
std::string computeType(ir::ElementType element);  // "f32" or "f64"
Value toCompute(TtirWriter& w, ir::ElementType element, const Value& v);
Value fromCompute(TtirWriter& w, ir::ElementType element, const Value& v);
// Rounds an f32/f64 value to f8 with IEEE overflow: beyond the largest finite
// value E5M2 gives +-inf and E4M3FN (no infinities) NaN, where tt.fp_to_fp
// alone would saturate.
Value toF8(TtirWriter& w, ir::ElementType f8, const Value& v);

// Library math function of the backend for f32/f64 (name such as "tanh",
// "atan2", "powf"-less base names; see math_library.cc).
std::string mathSymbol(Target target, std::string_view function, std::string_view scalar);
// The math library function a float op of this kind calls; null: none.
const char* libraryFunctionOf(ir::OpKind kind);
// One-operand/two-operand call of that function in the compute type.
Value callMath(TtirWriter& w, std::string_view function, const std::vector<Value>& args);

}  // namespace jft::codegen::ttir::ew
