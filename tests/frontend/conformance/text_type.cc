// Types of the generic text: tensors, tokens, tuples and function types.
#include <cctype>

#include "generic_text.h"
#include "text_split.h"

namespace jft::conformance {

StatusOr<TextType> parseTextType(std::string_view text) {
  text = trimSpace(text);
  TextType type;
  type.text = std::string(text);
  if (text == "!stablehlo.token") {
    type.kind = TextType::Kind::Token;
    return type;
  }
  if (text.starts_with("tuple<") && text.ends_with(">")) {
    type.kind = TextType::Kind::Tuple;
    std::string_view inner = text.substr(6, text.size() - 7);
    if (trimSpace(inner).empty()) return type;
    for (std::string_view part : splitTopLevel(inner)) {
      JFT_ASSIGN_OR_RETURN(TextType element, parseTextType(part));
      type.tuple.push_back(std::move(element));
    }
    return type;
  }
  if (text.starts_with("tensor<") && text.ends_with(">")) {
    type.kind = TextType::Kind::Tensor;
    std::string_view inner = splitTopLevel(text.substr(7, text.size() - 8)).front();
    while (!inner.empty() &&
           (std::isdigit(static_cast<unsigned char>(inner[0])) || inner[0] == '?')) {
      size_t x = inner.find('x');
      if (x == std::string_view::npos)
        return invalidArgument("bad tensor type " + type.text);
      std::string_view dim = inner.substr(0, x);
      type.dims.push_back(dim == "?" ? -1 : std::stoll(std::string(dim)));
      inner.remove_prefix(x + 1);
    }
    if (inner.empty())
      return invalidArgument("tensor type without element type: " + type.text);
    type.element = std::string(trimSpace(inner));
    return type;
  }
  if (text.empty()) return invalidArgument("empty type");
  type.element = type.text;
  return type;
}

StatusOr<TextFunctionType> parseTextFunctionType(std::string_view text) {
  text = trimSpace(text);
  if (!text.starts_with("("))
    return invalidArgument("function type must start with '(': " + std::string(text));
  size_t close = matchingClose(text, 0);
  if (close == std::string_view::npos)
    return invalidArgument("unbalanced function type: " + std::string(text));
  std::string_view rest = trimSpace(text.substr(close + 1));
  if (!rest.starts_with("->"))
    return invalidArgument("function type lacks '->': " + std::string(text));
  rest = trimSpace(rest.substr(2));

  TextFunctionType out;
  std::string_view inputs = trimSpace(text.substr(1, close - 1));
  if (!inputs.empty()) {
    for (std::string_view part : splitTopLevel(inputs)) {
      JFT_ASSIGN_OR_RETURN(TextType type, parseTextType(part));
      out.inputs.push_back(std::move(type));
    }
  }
  if (rest.starts_with("(") && matchingClose(rest, 0) == rest.size() - 1) {
    rest = trimSpace(rest.substr(1, rest.size() - 2));
    if (rest.empty()) return out;
    for (std::string_view part : splitTopLevel(rest)) {
      JFT_ASSIGN_OR_RETURN(TextType type, parseTextType(part));
      out.results.push_back(std::move(type));
    }
    return out;
  }
  JFT_ASSIGN_OR_RETURN(TextType result, parseTextType(rest));
  out.results.push_back(std::move(result));
  return out;
}

}  // namespace jft::conformance
