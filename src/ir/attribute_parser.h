// Attributes as attribute_printer.h writes them, back into Attribute values.
// Text the printer could only have written for an OpaqueAttr (a dialect's
// attribute, or a builtin one ir does not model) becomes an OpaqueAttr
// holding that text, so it prints back the same.
#pragma once

#include "ir/attribute.h"
#include "ir/location.h"
#include "ir/text_cursor.h"

namespace jft::ir {

bool parseAttribute(TextCursor& cursor, Attribute& out);
// `{a = 1, b}`; a bare name is a unit attribute.
bool parseAttrDict(TextCursor& cursor, NamedAttrs& out);
// The inside of `loc(...)`, added to `table`.
bool parseLocation(TextCursor& cursor, LocationTable& table, LocId& out);

}  // namespace jft::ir
