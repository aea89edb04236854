#include "ir/parser.h"

#include "ir/attribute_parser.h"
#include "ir/op_parser.h"

namespace jft::ir {

StatusOr<Module> parseModule(std::string_view text) {
  TextCursor cursor(text);
  Module module;
  OpParser functions(cursor, module);
  if (cursor.consumeKeyword("module")) {
    if (cursor.consume("@")) {
      auto name = cursor.word();
      if (!name)
        cursor.fail("a module name");
      else
        module.name = *name;
    }
    if (cursor.consumeKeyword("attributes")) parseAttrDict(cursor, module.attrs);
    if (cursor.expect("{")) {
      while (!cursor.failed() && !cursor.consume("}")) {
        if (cursor.atEnd()) {
          cursor.fail("'}' closing the module");
          break;
        }
        functions.parseFunction();
      }
    }
  } else {
    while (!cursor.failed() && !cursor.atEnd()) functions.parseFunction();
  }
  if (!cursor.failed() && !cursor.atEnd()) cursor.fail("the end of the text");
  if (cursor.failed()) return cursor.status();
  return module;
}

}  // namespace jft::ir
