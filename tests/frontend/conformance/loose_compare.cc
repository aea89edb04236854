// compareLoose: the program text (before serialization) against the import.
#include <algorithm>

#include "conformance_check.h"
#include "dense_compare.h"
#include "function_header_compare.h"
#include "ir_match.h"
#include "loose_wiring.h"
#include "text_attr.h"

namespace jft::conformance {
namespace {

constexpr std::string_view kAnyRun = "*";

struct TextSummary {
  std::vector<std::string> ops;        // IR names; kAnyRun for a chlo op
  std::vector<std::string> constants;  // `value` texts, distinct
  bool has_chlo = false;
};

void summarizeText(const TextRegion& region, TextSummary& s) {
  for (const TextOp& op : region.ops) {
    if (op.name == "stablehlo.constant") {
      const TextAttr* value = op.property("value");
      if (value && std::find(s.constants.begin(), s.constants.end(), value->value) ==
                       s.constants.end())
        s.constants.push_back(value->value);
      continue;
    }
    if (op.name.starts_with("chlo.")) {
      // Serialized as a composite, or expanded in place: its body is no
      // longer here either way.
      s.ops.emplace_back(kAnyRun);
      s.has_chlo = true;
      continue;
    }
    s.ops.push_back(irNameOfTextOp(op.name));
    for (const TextRegion& nested : op.regions) summarizeText(nested, s);
  }
}

void summarizeIr(const ir::Region& region, std::vector<std::string>& ops,
                 std::vector<const ir::DenseElements*>& constants) {
  for (const ir::Op& op : region.ops) {
    if (op.kind == ir::OpKind::Constant) {
      if (const auto* value = ir::findAttrAs<ir::DenseElements>(op.attrs, "value"))
        constants.push_back(value);
      continue;
    }
    ops.emplace_back(ir::opKindName(op.kind));
    for (const ir::Region& nested : op.regions) summarizeIr(nested, ops, constants);
  }
}

// Glob matching where kAnyRun stands for any run of ops, zero or more.
bool sequencesMatch(const std::vector<std::string>& pattern,
                    const std::vector<std::string>& ops) {
  std::vector<std::vector<bool>> can(pattern.size() + 1,
                                     std::vector<bool>(ops.size() + 1));
  can[pattern.size()][ops.size()] = true;
  for (size_t p = pattern.size(); p-- > 0;)
    for (size_t o = ops.size() + 1; o-- > 0;) {
      if (pattern[p] == kAnyRun)
        can[p][o] = can[p + 1][o] || (o < ops.size() && can[p][o + 1]);
      else
        can[p][o] = o < ops.size() && pattern[p] == ops[o] && can[p + 1][o + 1];
    }
  return can[0][0];
}

std::string firstDifference(const std::vector<std::string>& pattern,
                            const std::vector<std::string>& ops) {
  size_t i = 0;
  while (i < pattern.size() && i < ops.size() && pattern[i] == ops[i]) ++i;
  std::string text_op = i < pattern.size() ? pattern[i] : "(end)";
  std::string ir_op = i < ops.size() ? ops[i] : "(end)";
  return "non-constant op " + std::to_string(i) + " is " + text_op + " in the text, " +
         ir_op + " imported (" + std::to_string(pattern.size()) + " vs " +
         std::to_string(ops.size()) + " ops)";
}

void compareFunctionBody(const TextOp& text, const ir::Function& function,
                         const ir::Module& module, std::vector<std::string>& out) {
  if (text.regions.empty()) return;
  std::string where = "@" + function.name;
  TextSummary t;
  summarizeText(text.regions[0], t);
  std::vector<std::string> ops;
  std::vector<const ir::DenseElements*> constants;
  summarizeIr(function.body, ops, constants);
  if (!sequencesMatch(t.ops, ops)) {
    out.push_back(where + ": " + firstDifference(t.ops, ops));
  } else if (!t.has_chlo) {
    compareWiringModuloConstants(text, function, module, out);
  }

  std::vector<TextDense> text_constants;
  for (const std::string& value : t.constants) {
    std::optional<TextDense> dense = parseDense(value);
    if (!dense) {
      out.push_back(where + ": constant " + value +
                    " is not a dense literal this test reads");
      continue;
    }
    bool found = false;
    for (const ir::DenseElements* c : constants)
      found = found || !denseMismatch(*dense, *c);
    if (!found)
      out.push_back(where + ": constant " + value + " of the text is not imported");
    text_constants.push_back(std::move(*dense));
  }
  if (t.has_chlo) return;  // expansions bring constants of their own
  for (const ir::DenseElements* c : constants) {
    bool found = false;
    for (const TextDense& dense : text_constants)
      found = found || !denseMismatch(dense, *c);
    if (!found)
      out.push_back(where + ": imported constant of type " + c->type.str() +
                    " matches no constant of the text");
  }
}

}  // namespace

std::vector<std::string> compareLoose(const TextModule& text, const ir::Module& module) {
  std::vector<std::string> out;
  compareModuleName(text, module, out);
  for (const TextOp* f : text.functions()) {
    std::string name = textFunctionName(*f);
    const ir::Function* function = module.findFunction(name);
    if (!function) {
      out.push_back("@" + name + ": function missing from the import");
      continue;
    }
    compareFunctionHeader(*f, *function, module, out);
    compareFunctionBody(*f, *function, module, out);
  }
  return out;
}

}  // namespace jft::conformance
