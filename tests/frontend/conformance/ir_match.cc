#include "ir_match.h"

#include "ir/element_type.h"

namespace jft::conformance {

std::string irNameOfTextOp(std::string_view text_name) {
  if (text_name == "func.return") return "return";
  if (text_name == "func.call") return "call";
  if (text_name.starts_with("stablehlo.")) return std::string(text_name.substr(10));
  return std::string(text_name);
}

bool opNameMatches(std::string_view text_name, ir::OpKind kind) {
  return irNameOfTextOp(text_name) == ir::opKindName(kind);
}

bool typeMatches(const TextType& text, const ir::Type& type) {
  switch (type.kind) {
    case ir::Type::Kind::Token:
      return text.kind == TextType::Kind::Token;
    case ir::Type::Kind::Tuple:
      if (text.kind != TextType::Kind::Tuple || text.tuple.size() != type.tuple.size())
        return false;
      for (size_t i = 0; i < text.tuple.size(); ++i)
        if (!typeMatches(text.tuple[i], type.tuple[i])) return false;
      return true;
    case ir::Type::Kind::Tensor:
      return text.kind == TextType::Kind::Tensor &&
             text.element == ir::elementTypeName(type.element) && text.dims == type.dims;
  }
  return false;
}

}  // namespace jft::conformance
