// How an IR element type lives in the native kernels' CUDA C: its register
// type (what expressions hold), its storage type (what buffers hold) and, for
// floats, the type arithmetic runs in. f16/bf16 values are held as floats that
// are exactly representable in their type (each op rounds its result);
// pred is a bool in registers and one byte in memory; complex values are
// {re, im} structs (jft_c64, jft_c128), stored as the interleaved pairs.
#pragma once

#include <string>

#include "ir/element_type.h"

namespace jft::codegen::native {

// The types the emitter computes with: pred, 8- to 64-bit integers, f16,
// bf16, f32, f64, complex<f32>, complex<f64>. `why` (may be null) says why another is
// refused.
bool isNativeType(ir::ElementType element, std::string* why = nullptr);

std::string registerType(ir::ElementType element);  // "bool", "jft_i32", "float"
std::string storageType(ir::ElementType element);   // "jft_u8", "jft_u16", "float"
// Floats: "float" (f16, bf16, f32) or "double" (f64); complex: that of a part.
std::string computeType(ir::ElementType element);
// Integers only: the unsigned/signed type of the same width ("jft_u32").
std::string unsignedTwin(ir::ElementType element);
std::string signedTwin(ir::ElementType element);

// A stored element (an lvalue or value of storageType) as a register value.
std::string fromStorage(ir::ElementType element, const std::string& stored);
// A register value as the storage type.
std::string toStorage(ir::ElementType element, const std::string& value);
// A float computed in computeType(element), rounded to the element's type and
// held in its register type.
std::string roundTo(ir::ElementType element, const std::string& computed);

}  // namespace jft::codegen::native
