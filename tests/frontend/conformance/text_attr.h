// Interpretations of attribute values as the generic text writes them. Each
// returns nullopt when the text is not of that form, so a caller can try the
// forms in turn.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "generic_text.h"

namespace jft::conformance {

// "array<i64: 0, 1>", "array<i64>" or "[0, 1]".
std::optional<std::vector<int64_t>> parseIntArray(std::string_view text);
// "array<i1: true, false>".
std::optional<std::vector<bool>> parseBoolArray(std::string_view text);
// "3 : i64", "1 : i32", "7".
std::optional<int64_t> parseInteger(std::string_view text);
// "1.5 : f32".
std::optional<double> parseFloat(std::string_view text);
// "true" / "false".
std::optional<bool> parseBool(std::string_view text);
// "\"text\"" (with escapes undone).
std::optional<std::string> parseStringLiteral(std::string_view text);
// "@name" or "@\"quoted.name\"".
std::optional<std::string> parseSymbolRef(std::string_view text);

// "#stablehlo<comparison_direction LT>" -> {"comparison_direction", "LT"}.
struct DialectEnum {
  std::string kind, value;
};
std::optional<DialectEnum> parseDialectEnum(std::string_view text);

// "#stablehlo.dot<lhs_contracting_dimensions = [1], ...>" -> {"dot", fields}.
struct DialectStruct {
  std::string kind;
  std::vector<TextAttr> fields;
  const TextAttr* field(std::string_view name) const;
};
std::optional<DialectStruct> parseDialectStruct(std::string_view text);

// "#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>", by dimension role.
struct ConvLayout {
  int64_t input_batch = -1, input_feature = -1;
  std::vector<int64_t> input_spatial;
  int64_t kernel_input_feature = -1, kernel_output_feature = -1;
  std::vector<int64_t> kernel_spatial;
  int64_t output_batch = -1, output_feature = -1;
  std::vector<int64_t> output_spatial;
};
std::optional<ConvLayout> parseConvLayout(std::string_view text);

// "dense<...> : tensor<...>". Elements are kept as written: "1.5", "-3",
// "true", "0x7FC00000", "(1.0,2.0)" for complex. A single element is a
// splat; `hex_buffer` holds the whole buffer for `dense<"0x...">`.
struct TextDense {
  TextType type;
  std::vector<std::string> elements;
  std::string hex_buffer;  // without the 0x, when the body is a quoted hex string
  bool splat() const { return hex_buffer.empty() && elements.size() == 1; }
};
std::optional<TextDense> parseDense(std::string_view text);

}  // namespace jft::conformance
