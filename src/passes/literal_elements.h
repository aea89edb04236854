// Single elements of dense literals (ir::DenseElements, see ir/attribute.h):
// their raw encodings and, for integers and pred, their values.
//
// Integer values travel as 64-bit two's complement: signed types are
// sign-extended, unsigned ones zero-extended (a u64 above INT64_MAX reads as
// a negative int64 with the same bits, which keeps wrap-around arithmetic
// exact). Only the low bitWidth(type) bits of an encoding are significant.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/attribute.h"

namespace jft::passes {

// The low bitWidth bits of element `index`. Not for complex types.
uint64_t elementBits(const ir::DenseElements& literal, int64_t index);

// Element `index` of an integer or pred literal, extended to 64 bits.
int64_t elementInteger(const ir::DenseElements& literal, int64_t index);

// `value` truncated to the element type, appended in its storage size.
void appendElement(std::vector<uint8_t>& bytes, ir::ElementType element, uint64_t value);

// True when every element has the encoding of the first: a splat literal, or
// a spelled-out one whose elements agree (an empty literal is not a splat: it
// has no value to report).
bool isSplat(const ir::DenseElements& literal);

// A literal of `type` whose every element is `bits`: one element, however
// many the type has.
ir::DenseElements splatLiteral(const ir::Type& type, uint64_t bits);

}  // namespace jft::passes
