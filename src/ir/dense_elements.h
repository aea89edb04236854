// A dense literal (constants, replica groups, padding...): a tensor type and
// its elements in row-major order, each element storageBytes(type.element)
// bytes, little endian; PRED as one byte 0/1; complex as (real, imag).
//
// A splat (every element the same value) keeps that one element only, as
// MLIR does: JAX programs hold many constants like dense<1.0> of 2^26
// elements, and spelling each out would cost memory and time in every pass
// that copies or compares them. Code that wants element i asks element(i);
// only code that must hand all bytes to something else (a constant buffer
// uploaded to the device) calls expanded().
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "ir/type.h"

namespace jft::ir {

struct DenseElements {
  Type type;
  // All numElements() elements, or exactly one when `splat` is set.
  std::vector<uint8_t> bytes;
  bool splat = false;

  // A literal of `type` whose every element is `element` (elementBytes()
  // bytes). A one-element type gets the plain form: both spell the same bytes.
  static DenseElements makeSplat(Type type, std::vector<uint8_t> element);

  int64_t numElements() const { return type.numElements(); }
  int64_t elementBytes() const { return storageBytes(type.element); }
  // Whether `bytes` hold what the type and the splat flag ask for.
  bool wellFormed() const;
  // Element i's bytes. The literal must be well formed and 0 <= i < numElements().
  std::span<const uint8_t> element(int64_t i) const;
  // Whether every element has the encoding of the first: a splat, or a plain
  // literal whose elements happen to agree. False when there are no elements.
  bool allEqual() const;
  // All numElements() elements spelled out, a splat's one repeated. For the
  // few consumers that need every byte (a constant buffer for the device).
  std::vector<uint8_t> expanded() const;

  // Equal values: a splat equals a plain literal of the same type whose
  // elements are all its element.
  friend bool operator==(const DenseElements& a, const DenseElements& b);
};

// The value of a one-element integer or pred literal (a typed scalar of a
// custom call's configuration); nullopt for anything else.
std::optional<int64_t> scalarInteger(const DenseElements& literal);

// Appends the low `bytes` bytes of `value`, least significant first: one
// element of a literal's `bytes`.
inline void appendLittleEndian(std::vector<uint8_t>& out, uint64_t value, int64_t bytes) {
  for (int64_t i = 0; i < bytes; ++i)
    out.push_back(static_cast<uint8_t>(value >> (8 * i)));
}

}  // namespace jft::ir
