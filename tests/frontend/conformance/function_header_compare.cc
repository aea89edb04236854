#include "function_header_compare.h"

#include "ir_match.h"
#include "text_attr.h"

namespace jft::conformance {

std::string textFunctionName(const TextOp& function) {
  const TextAttr* name = function.property("sym_name");
  if (!name) return "";
  return parseStringLiteral(name->value).value_or("");
}

void compareModuleName(const TextModule& text, const ir::Module& module,
                       std::vector<std::string>& out) {
  const TextOp* op = text.moduleOp();
  if (!op) {
    out.push_back("text has no builtin.module");
    return;
  }
  std::string expected;
  if (const TextAttr* name = op->property("sym_name"))
    expected = parseStringLiteral(name->value).value_or("");
  if (expected != module.name)
    out.push_back("module name: text \"" + expected + "\", import \"" + module.name +
                  "\"");
}

namespace {

void compareTypeLists(const std::string& what, const std::vector<TextType>& text,
                      const std::vector<ir::Type>& types, std::vector<std::string>& out) {
  if (text.size() != types.size()) {
    out.push_back(what + ": text has " + std::to_string(text.size()) + ", import " +
                  std::to_string(types.size()));
    return;
  }
  for (size_t i = 0; i < text.size(); ++i)
    if (!typeMatches(text[i], types[i]))
      out.push_back(what + " " + std::to_string(i) + ": text " + text[i].text +
                    ", import " + types[i].str());
}

}  // namespace

void compareFunctionHeader(const TextOp& text, const ir::Function& function,
                           const ir::Module& module, std::vector<std::string>& out) {
  std::string where = "@" + function.name;
  bool text_public = true;  // MLIR's default visibility
  if (const TextAttr* v = text.property("sym_visibility"))
    text_public = parseStringLiteral(v->value).value_or("") == "public";
  if (text_public != function.is_public)
    out.push_back(where + ": text says " + (text_public ? "public" : "private") +
                  ", import says " + (function.is_public ? "public" : "private"));

  std::vector<ir::Type> arg_types;
  for (ir::ValueId arg : function.body.args) arg_types.push_back(module.typeOf(arg));
  const TextAttr* type_attr = text.property("function_type");
  if (!type_attr) {
    out.push_back(where + ": text function has no function_type");
    return;
  }
  StatusOr<TextFunctionType> type = parseTextFunctionType(type_attr->value);
  if (!type.isOk()) {
    out.push_back(where + ": " + type.status().message());
    return;
  }
  compareTypeLists(where + " argument types", type->inputs, arg_types, out);
  compareTypeLists(where + " result types", type->results, function.result_types, out);
  if (!text.regions.empty()) {
    std::vector<TextType> block_types;
    for (const TextBlockArg& arg : text.regions[0].args) block_types.push_back(arg.type);
    compareTypeLists(where + " entry block argument types", block_types, arg_types, out);
  }
}

}  // namespace jft::conformance
