#include "frontend/bytecode/asm_text.h"

#include "frontend/bytecode/values.h"

namespace jft::frontend::bytecode {

MAttrPtr parseAttrAsm(std::string_view dialect, std::string_view text) {
  auto attr = std::make_shared<MAttr>();
  attr->kind = MAttr::Kind::Opaque;
  attr->dialect = std::string(dialect);
  attr->str = std::string(text);
  return attr;
}

MTypePtr parseTypeAsm(std::string_view dialect, std::string_view text) {
  return makeOpaqueType(std::string(dialect), std::string(text));
}

}  // namespace jft::frontend::bytecode
