// Functions, regions and ops (parser.h): the function-level half of the
// parser; attributes, types, literals and locations come from their own
// files.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ir/module.h"
#include "ir/text_cursor.h"

namespace jft::ir {

class OpParser {
 public:
  OpParser(TextCursor& cursor, Module& module) : cursor_(cursor), module_(module) {}

  // `func.func public @name(%arg0: T {attrs}, ...) -> T { ... } loc(...)`.
  bool parseFunction();

 private:
  bool parseRegionBody(Region& region, bool in_function_body, int depth);
  bool parseOp(Region& region, bool in_function_body, int depth);
  bool parseResultNames(std::vector<std::pair<std::string, size_t>>& names,
                        size_t& count);
  bool parseUse(ValueId& out);
  bool parseUseList(std::vector<ValueId>& out);
  bool parseRegions(Op& op, int depth);
  bool parseSignature(const Op& op, size_t result_count, std::vector<Type>& results);
  bool parseOptionalLocation(LocId& out);
  bool defineValue(const std::string& name, size_t offset, std::vector<ValueId> ids);
  bool parseValueName(std::string& out);

  TextCursor& cursor_;
  Module& module_;
  // Names are per function, as the printer numbers them.
  std::map<std::string, std::vector<ValueId>> values_;
};

}  // namespace jft::ir
