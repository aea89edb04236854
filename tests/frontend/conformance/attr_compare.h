// Compares one attribute value of the text with the IR's typed attribute.
// The text's spelling decides what is compared: `array<i64: ...>` against an
// int list, `#stablehlo<comparison_direction LT>` against the enum,
// `#stablehlo.dot<...>` against DotDimensionNumbers, `dense<...>` against the
// decoded literal, and so on. Spellings this file does not interpret are only
// required to be present.
#pragma once

#include <optional>
#include <string>

#include "ir/attribute.h"

namespace jft::conformance {

// nullopt when they agree; otherwise what differs, for a message.
std::optional<std::string> attributeMismatch(const std::string& text,
                                             const ir::Attribute& attr);

}  // namespace jft::conformance
