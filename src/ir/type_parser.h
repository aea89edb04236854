// Types and element types in the printer's spelling (type.h): `tensor<4x8xf32>`,
// `tensor<complex<f32>>`, `!stablehlo.token`, `tuple<...>`.
#pragma once

#include "ir/text_cursor.h"
#include "ir/type.h"

namespace jft::ir {

bool parseElementType(TextCursor& cursor, ElementType& out);
bool parseType(TextCursor& cursor, Type& out);
// Whether the text continues with a type.
bool startsType(TextCursor& cursor);
// An element type alone (`f32`) as a scalar tensor, or a whole type: the
// dot algorithm's precision types print either way.
bool parseScalarOrType(TextCursor& cursor, Type& out);

}  // namespace jft::ir
