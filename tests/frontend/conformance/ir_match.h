// How names and types of the generic text correspond to the IR's: the text
// says "stablehlo.add" and "func.return", the IR says OpKind::Add and Return.
#pragma once

#include <string>
#include <string_view>

#include "generic_text.h"
#include "ir/op_kind.h"
#include "ir/type.h"

namespace jft::conformance {

// The IR's name for a text op: "stablehlo.add" -> "add", "func.return" and
// "stablehlo.return" -> "return", "func.call" -> "call". Ops of other
// dialects keep their full name, so they match no OpKind.
std::string irNameOfTextOp(std::string_view text_name);
bool opNameMatches(std::string_view text_name, ir::OpKind kind);

bool typeMatches(const TextType& text, const ir::Type& type);

}  // namespace jft::conformance
