#include "text_attr.h"

#include <cctype>
#include <cstdlib>

#include "text_cursor.h"
#include "text_split.h"

namespace jft::conformance {
namespace {

// The text before a top-level " : type" suffix ("3 : i64" -> "3").
std::string_view withoutTypeSuffix(std::string_view text) {
  text = trimSpace(text);
  size_t colon = text.find(" : ");
  return colon == std::string_view::npos ? text : trimSpace(text.substr(0, colon));
}

std::optional<int64_t> toInteger(std::string_view text) {
  text = trimSpace(text);
  if (text.empty()) return std::nullopt;
  std::string s(text);
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (end != s.c_str() + s.size()) return std::nullopt;
  return v;
}

// The inside of "prefix<...>" when `text` is exactly that.
std::optional<std::string_view> insideAngles(std::string_view text,
                                             std::string_view prefix) {
  text = trimSpace(text);
  if (!text.starts_with(prefix) || text.size() <= prefix.size()) return std::nullopt;
  size_t open = prefix.size();
  if (text[open] != '<' || matchingClose(text, open) != text.size() - 1)
    return std::nullopt;
  return text.substr(open + 1, text.size() - open - 2);
}

// Flattens a nested "[[1, 2], [3, 4]]" list into its leaves.
void flattenList(std::string_view text, std::vector<std::string>& out) {
  text = trimSpace(text);
  if (text.starts_with("[") && matchingClose(text, 0) == text.size() - 1) {
    std::string_view inner = trimSpace(text.substr(1, text.size() - 2));
    if (inner.empty()) return;
    for (std::string_view part : splitTopLevel(inner)) flattenList(part, out);
    return;
  }
  std::string leaf;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) leaf += c;
  out.push_back(leaf);
}

}  // namespace

std::optional<std::vector<int64_t>> parseIntArray(std::string_view text) {
  text = trimSpace(text);
  std::string_view inner;
  if (auto angles = insideAngles(text, "array")) {
    std::string_view body = trimSpace(*angles);
    if (!body.starts_with("i") && !body.starts_with("ui")) return std::nullopt;
    size_t colon = body.find(':');
    if (colon == std::string_view::npos) return std::vector<int64_t>{};
    inner = body.substr(colon + 1);
  } else if (text.starts_with("[") && text.ends_with("]")) {
    inner = text.substr(1, text.size() - 2);
  } else {
    return std::nullopt;
  }
  std::vector<int64_t> out;
  if (trimSpace(inner).empty()) return out;
  for (std::string_view part : splitTopLevel(inner)) {
    std::optional<int64_t> v = toInteger(withoutTypeSuffix(part));
    if (!v) return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

std::optional<std::vector<bool>> parseBoolArray(std::string_view text) {
  auto angles = insideAngles(text, "array");
  if (!angles) return std::nullopt;
  std::string_view body = trimSpace(*angles);
  if (!body.starts_with("i1")) return std::nullopt;
  std::vector<bool> out;
  size_t colon = body.find(':');
  if (colon == std::string_view::npos) return out;
  for (std::string_view part : splitTopLevel(body.substr(colon + 1))) {
    std::optional<bool> b = parseBool(part);
    if (!b) return std::nullopt;
    out.push_back(*b);
  }
  return out;
}

std::optional<int64_t> parseInteger(std::string_view text) {
  text = trimSpace(text);
  size_t colon = text.find(" : ");
  if (colon != std::string_view::npos) {
    std::string_view type = trimSpace(text.substr(colon + 3));
    if (!type.starts_with("i") && !type.starts_with("ui") && !type.starts_with("si") &&
        type != "index")
      return std::nullopt;
  }
  return toInteger(withoutTypeSuffix(text));
}

std::optional<double> parseFloat(std::string_view text) {
  text = trimSpace(text);
  size_t colon = text.find(" : ");
  if (colon == std::string_view::npos) return std::nullopt;
  std::string_view type = trimSpace(text.substr(colon + 3));
  if (!type.starts_with("f") && !type.starts_with("bf")) return std::nullopt;
  std::string s(withoutTypeSuffix(text));
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return std::nullopt;
  return v;
}

std::optional<bool> parseBool(std::string_view text) {
  text = trimSpace(text);
  if (text == "true") return true;
  if (text == "false") return false;
  return std::nullopt;
}

std::optional<std::string> parseStringLiteral(std::string_view text) {
  text = trimSpace(text);
  if (!text.starts_with("\"")) return std::nullopt;
  TextCursor cursor(text);
  StatusOr<std::string> s = cursor.readString();
  if (!s.isOk() || !cursor.atEnd()) return std::nullopt;
  return *s;
}

std::optional<std::string> parseSymbolRef(std::string_view text) {
  text = trimSpace(text);
  if (!text.starts_with("@")) return std::nullopt;
  text.remove_prefix(1);
  if (text.starts_with("\"")) return parseStringLiteral(text);
  return std::string(text);
}

std::optional<DialectEnum> parseDialectEnum(std::string_view text) {
  text = trimSpace(text);
  if (!text.starts_with("#")) return std::nullopt;
  size_t open = text.find('<');
  if (open == std::string_view::npos || matchingClose(text, open) != text.size() - 1)
    return std::nullopt;
  std::string_view inner = trimSpace(text.substr(open + 1, text.size() - open - 2));
  size_t space = inner.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  return DialectEnum{std::string(inner.substr(0, space)),
                     std::string(trimSpace(inner.substr(space + 1)))};
}

const TextAttr* DialectStruct::field(std::string_view name) const {
  for (const TextAttr& f : fields)
    if (f.name == name) return &f;
  return nullptr;
}

std::optional<DialectStruct> parseDialectStruct(std::string_view text) {
  text = trimSpace(text);
  if (!text.starts_with("#")) return std::nullopt;
  size_t open = text.find('<');
  if (open == std::string_view::npos || matchingClose(text, open) != text.size() - 1)
    return std::nullopt;
  std::string_view head = text.substr(1, open - 1);  // "stablehlo.dot"
  DialectStruct out;
  size_t dot = head.rfind('.');
  out.kind = std::string(dot == std::string_view::npos ? head : head.substr(dot + 1));
  std::string_view inner = trimSpace(text.substr(open + 1, text.size() - open - 2));
  if (inner.empty()) return out;
  for (std::string_view part : splitTopLevel(inner)) {
    size_t eq = part.find('=');
    if (eq == std::string_view::npos) return std::nullopt;
    out.fields.push_back(TextAttr{std::string(trimSpace(part.substr(0, eq))),
                                  std::string(trimSpace(part.substr(eq + 1)))});
  }
  return out;
}

std::optional<ConvLayout> parseConvLayout(std::string_view text) {
  auto inner = insideAngles(text, "#stablehlo.conv");
  if (!inner) return std::nullopt;
  std::string_view body = trimSpace(*inner);
  size_t x = body.find("]x[");
  size_t arrow = body.find("]->[");
  if (x == std::string_view::npos || arrow == std::string_view::npos || arrow < x)
    return std::nullopt;
  auto letters = [](std::string_view list) {
    std::vector<std::string> out;
    flattenList(list, out);
    return out;
  };
  std::vector<std::string> input = letters(body.substr(0, x + 1));
  std::vector<std::string> kernel = letters(body.substr(x + 2, arrow - x - 1));
  std::vector<std::string> output = letters(body.substr(arrow + 3));
  ConvLayout layout;
  // Spatial entries are numbered by their spatial index, placed at their position.
  auto place = [](std::vector<int64_t>& spatial, const std::string& s, int64_t pos) {
    std::optional<int64_t> k = toInteger(s);
    if (!k || *k < 0) return false;
    if (spatial.size() <= static_cast<size_t>(*k)) spatial.resize(*k + 1, -1);
    spatial[*k] = pos;
    return true;
  };
  for (size_t i = 0; i < input.size(); ++i) {
    int64_t p = static_cast<int64_t>(i);
    if (input[i] == "b")
      layout.input_batch = p;
    else if (input[i] == "f")
      layout.input_feature = p;
    else if (!place(layout.input_spatial, input[i], p))
      return std::nullopt;
  }
  for (size_t i = 0; i < kernel.size(); ++i) {
    int64_t p = static_cast<int64_t>(i);
    if (kernel[i] == "i")
      layout.kernel_input_feature = p;
    else if (kernel[i] == "o")
      layout.kernel_output_feature = p;
    else if (!place(layout.kernel_spatial, kernel[i], p))
      return std::nullopt;
  }
  for (size_t i = 0; i < output.size(); ++i) {
    int64_t p = static_cast<int64_t>(i);
    if (output[i] == "b")
      layout.output_batch = p;
    else if (output[i] == "f")
      layout.output_feature = p;
    else if (!place(layout.output_spatial, output[i], p))
      return std::nullopt;
  }
  return layout;
}

std::optional<TextDense> parseDense(std::string_view text) {
  text = trimSpace(text);
  if (!text.starts_with("dense<")) return std::nullopt;
  size_t close = matchingClose(text, 5);
  if (close == std::string_view::npos) return std::nullopt;
  std::string_view rest = trimSpace(text.substr(close + 1));
  if (!rest.starts_with(":")) return std::nullopt;
  StatusOr<TextType> type = parseTextType(rest.substr(1));
  if (!type.isOk()) return std::nullopt;
  TextDense dense;
  dense.type = std::move(type).value();
  std::string_view body = trimSpace(text.substr(6, close - 6));
  if (body.starts_with("\"")) {
    std::optional<std::string> hex = parseStringLiteral(body);
    if (!hex || !hex->starts_with("0x")) return std::nullopt;
    dense.hex_buffer = hex->substr(2);
    return dense;
  }
  flattenList(body, dense.elements);
  if (body.empty()) dense.elements.clear();
  return dense;
}

}  // namespace jft::conformance
