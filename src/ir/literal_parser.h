// Dense literals as the printer writes them (attribute_printer.h): the text
// inside `dense<...>` is read first and turned into bytes once the tensor
// type is known (a constant's type comes after its literal).
//
// Elements: integers, true/false, floats in decimal ("0.1", "-1e+20"), inf,
// -inf, nan, MLIR's hex bit patterns (0x7FC00000) and complex pairs
// "(re,im)". Floats round-trip exactly through float_text.h.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "ir/dense_elements.h"
#include "ir/text_cursor.h"

namespace jft::ir {

struct LiteralText {
  size_t offset = 0;           // of the `dense<` for messages
  bool nested = false;         // brackets present; else one splat element
  std::vector<int64_t> shape;  // bracket lengths by depth
  std::vector<std::string_view> elements;
  std::vector<size_t> element_offsets;
};

// `dense<...>` without a type. The elided form `dense<...> (N elements)` is
// refused: its elements are gone.
bool parseLiteralText(TextCursor& cursor, LiteralText& out);

// The literal as a value of `type`: a splat when one element was written
// for several, else exactly the type's shape.
bool buildDense(TextCursor& cursor, const LiteralText& text, const Type& type,
                DenseElements& out);

}  // namespace jft::ir
