// Element types of tensors, as StableHLO names them.
//
// Semantics: signed integers wrap on overflow (two's complement); unsigned
// integers wrap modulo 2^N; floating-point ops round to nearest even in the
// result type; PRED is a one-bit boolean stored as one byte on devices.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace jft::ir {

// X(enumerator, StableHLO spelling, bit width, category)
#define JFT_ELEMENT_TYPES(X)                    \
  X(PRED, "i1", 1, Pred)                        \
  X(I2, "i2", 2, Signed)                        \
  X(I4, "i4", 4, Signed)                        \
  X(I8, "i8", 8, Signed)                        \
  X(I16, "i16", 16, Signed)                     \
  X(I32, "i32", 32, Signed)                     \
  X(I64, "i64", 64, Signed)                     \
  X(U2, "ui2", 2, Unsigned)                     \
  X(U4, "ui4", 4, Unsigned)                     \
  X(U8, "ui8", 8, Unsigned)                     \
  X(U16, "ui16", 16, Unsigned)                  \
  X(U32, "ui32", 32, Unsigned)                  \
  X(U64, "ui64", 64, Unsigned)                  \
  X(F4E2M1FN, "f4E2M1FN", 4, Float)             \
  X(F6E2M3FN, "f6E2M3FN", 6, Float)             \
  X(F6E3M2FN, "f6E3M2FN", 6, Float)             \
  X(F8E3M4, "f8E3M4", 8, Float)                 \
  X(F8E4M3, "f8E4M3", 8, Float)                 \
  X(F8E4M3FN, "f8E4M3FN", 8, Float)             \
  X(F8E4M3FNUZ, "f8E4M3FNUZ", 8, Float)         \
  X(F8E4M3B11FNUZ, "f8E4M3B11FNUZ", 8, Float)   \
  X(F8E5M2, "f8E5M2", 8, Float)                 \
  X(F8E5M2FNUZ, "f8E5M2FNUZ", 8, Float)         \
  X(F8E8M0FNU, "f8E8M0FNU", 8, Float)           \
  X(F16, "f16", 16, Float)                      \
  X(BF16, "bf16", 16, Float)                    \
  X(F32, "f32", 32, Float)                      \
  X(F64, "f64", 64, Float)                      \
  X(C64, "complex<f32>", 64, Complex)           \
  X(C128, "complex<f64>", 128, Complex)

enum class ElementType : uint8_t {
#define JFT_X(e, s, w, c) e,
  JFT_ELEMENT_TYPES(JFT_X)
#undef JFT_X
};

inline constexpr int kNumElementTypes = 0
#define JFT_X(e, s, w, c) +1
    JFT_ELEMENT_TYPES(JFT_X)
#undef JFT_X
    ;

// The StableHLO spelling: "f32", "ui8", "i1", "complex<f32>".
std::string_view elementTypeName(ElementType type);
std::optional<ElementType> parseElementType(std::string_view name);

// Bits of one value (PRED: 1, complex<f32>: 64).
int bitWidth(ElementType type);
// Bytes one element occupies in a dense device buffer (sub-byte types and
// PRED take a whole byte each, as XLA stores them).
int64_t storageBytes(ElementType type);

bool isPred(ElementType type);
bool isSignedInteger(ElementType type);
bool isUnsignedInteger(ElementType type);
bool isInteger(ElementType type);  // signed or unsigned, not PRED
bool isFloat(ElementType type);
bool isComplex(ElementType type);
// The component type of a complex type (C64 -> F32); the type itself otherwise.
ElementType complexComponent(ElementType type);

}  // namespace jft::ir
