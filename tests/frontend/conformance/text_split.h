// Bracket-aware splitting of attribute and type text: commas inside (), [],
// {}, <> or strings do not split, and the '>' of an arrow "->" closes nothing.
#pragma once

#include <string_view>
#include <vector>

namespace jft::conformance {

std::string_view trimSpace(std::string_view s);

// Parts of `text` separated by top-level commas, each trimmed. An empty text
// gives one empty part.
std::vector<std::string_view> splitTopLevel(std::string_view text, char separator = ',');

// Index of the bracket closing the one at `open`; npos if unbalanced.
size_t matchingClose(std::string_view text, size_t open);

}  // namespace jft::conformance
