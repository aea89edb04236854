// StableHLO's elementwise ops as the spec types them: how many operands, the
// element-type classes the op's data operand may have, and which operand that
// is. One table for the verifier and every code generator, so that "what the
// spec allows" is written once and each backend only says what it leaves out.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "ir/element_type.h"
#include "ir/op_kind.h"

namespace jft::ir {

// Element type classes the spec names in its "tensor of ... type" inputs.
enum ElementClass : unsigned {
  kBoolClass = 1,
  kSignedClass = 2,
  kUnsignedClass = 4,
  kFloatClass = 8,
  kComplexClass = 16,
  kIntClass = kSignedClass | kUnsignedClass,
  kAnyClass = kBoolClass | kIntClass | kFloatClass | kComplexClass,
};

unsigned elementClassOf(ElementType type);
// "integer or floating-point", for error messages.
std::string elementClassesText(unsigned classes);

struct ElementwiseSpec {
  int operands = 1;
  unsigned classes = kAnyClass;  // of the data operand
  size_t data_operand = 0;       // select's and clamp's data is operand 1
};

// Unary and binary arithmetic, compare, select, clamp, convert,
// bitcast_convert, complex/real/imag, reduce_precision; nullopt otherwise.
std::optional<ElementwiseSpec> elementwiseSpec(OpKind kind);

// Whether `type` may be the data operand's element type of an op of `spec`.
inline bool specAccepts(const ElementwiseSpec& spec, ElementType type) {
  return (elementClassOf(type) & spec.classes) != 0;
}

}  // namespace jft::ir
