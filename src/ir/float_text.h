// Exact values of floating-point element types and their shortest decimal
// text.
//
// Every float type StableHLO names (f64 down to f4E2M1FN) is decoded exactly
// into a double (all of their values are representable there). Text is the
// shortest decimal that reads back to the same value of the same type, so a
// bf16 holding 0.1 prints as "0.1", not as its 9-digit binary expansion.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ir/element_type.h"

namespace jft::ir {

// The value of `bits` (the low bitWidth(type) bits) in float type `type`.
// Infinities and NaNs decode to their double counterparts.
double decodeFloat(ElementType type, uint64_t bits);

// Shortest round-trip decimal for the value `bits` holds in `type`, always
// recognisable as a float ("1.0", "0.1", "1e+20", "-0.0", "inf", "-inf",
// "nan").
std::string formatFloatBits(ElementType type, uint64_t bits);

// The encoding of `value` in float type `type`, rounded to nearest (ties to
// an even mantissa); the inverse of decodeFloat for every value it yields.
// NaN gets the type's canonical NaN; values past the largest finite one
// become inf where the type has one. nullopt when the type cannot hold the
// value at all (NaN or inf in a type without them, a negative value in
// f8E8M0FNU, an overflow of a type without inf).
std::optional<uint64_t> encodeFloat(ElementType type, double value);

// Shortest round-trip decimal for a double, same spelling rules.
std::string formatDouble(double value);

}  // namespace jft::ir
