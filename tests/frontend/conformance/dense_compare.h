// Compares a dense literal of the text with the IR's decoded DenseElements,
// numerically: integers exactly, f32/f64 after rounding the text's decimal to
// the type, f16/bf16 within half a unit in the last place, hex spellings bit
// for bit, splats against every element.
#pragma once

#include <optional>
#include <string>

#include "ir/attribute.h"
#include "text_attr.h"

namespace jft::conformance {

// nullopt when they agree; otherwise what differs, for a message.
std::optional<std::string> denseMismatch(const TextDense& text,
                                         const ir::DenseElements& ir);

}  // namespace jft::conformance
