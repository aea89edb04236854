#include "function_header_compare.h"

#include "attr_compare.h"
#include "ir_match.h"
#include "text_attr.h"
#include "text_split.h"

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
  for (const TextAttr& attr : op->attributes) {
    const ir::Attribute* got = ir::findAttr(module.attrs, attr.name);
    if (!got) {
      out.push_back("module attribute " + attr.name + " missing from the import");
    } else if (std::optional<std::string> problem = attributeMismatch(attr.value, *got)) {
      out.push_back("module attribute " + attr.name + ": " + *problem);
    }
  }
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

// arg_attrs / res_attrs: "[{jax.result_info = \"result\"}, {}]", one
// dictionary per argument or result, each entry checked by value.
void comparePerValueAttrs(const std::string& what, const TextAttr* text,
                          const std::vector<ir::NamedAttrs>& attrs,
                          std::vector<std::string>& out) {
  if (!text) return;
  std::string_view list = trimSpace(text->value);
  if (!list.starts_with("[") || !list.ends_with("]")) {
    out.push_back(what + ": cannot read " + text->value);
    return;
  }
  std::vector<std::string_view> dicts = splitTopLevel(list.substr(1, list.size() - 2));
  for (size_t i = 0; i < dicts.size(); ++i) {
    std::string_view dict = dicts[i];
    if (dict.size() < 2 || dict == "{}") continue;
    for (std::string_view entry : splitTopLevel(dict.substr(1, dict.size() - 2))) {
      size_t eq = entry.find('=');
      std::string name(trimSpace(entry.substr(0, eq)));
      std::string value(eq == std::string_view::npos ? ""
                                                     : trimSpace(entry.substr(eq + 1)));
      const ir::Attribute* got =
          i < attrs.size() ? ir::findAttr(attrs[i], name) : nullptr;
      if (!got) {
        out.push_back(what + " " + std::to_string(i) + ": " + name +
                      " missing from the import");
      } else if (std::optional<std::string> problem = attributeMismatch(value, *got)) {
        out.push_back(what + " " + std::to_string(i) + ": " + name + ": " + *problem);
      }
    }
  }
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
  comparePerValueAttrs(where + " argument", text.property("arg_attrs"),
                       function.arg_attrs, out);
  comparePerValueAttrs(where + " result", text.property("res_attrs"),
                       function.result_attrs, out);
  if (!text.regions.empty()) {
    std::vector<TextType> block_types;
    for (const TextBlockArg& arg : text.regions[0].args) block_types.push_back(arg.type);
    compareTypeLists(where + " entry block argument types", block_types, arg_types, out);
  }
}

}  // namespace jft::conformance
