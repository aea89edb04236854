#include "loose_wiring.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "attr_compare.h"
#include "dense_compare.h"
#include "ir_match.h"
#include "text_attr.h"

namespace jft::conformance {
namespace {

// What an operand refers to once constants are set aside.
struct Source {
  enum class Kind { Missing, BlockArg, OpResult, Constant } kind = Kind::Missing;
  int owner = -1, index = -1;                   // block / aligned op, and position
  const std::string* text_value = nullptr;      // Constant, text side
  const ir::DenseElements* ir_value = nullptr;  // Constant, IR side
};

std::string describe(const Source& s) {
  switch (s.kind) {
    case Source::Kind::Missing:
      return "an undefined value";
    case Source::Kind::BlockArg:
      return "argument " + std::to_string(s.index) + " of block " +
             std::to_string(s.owner);
    case Source::Kind::OpResult:
      return "result " + std::to_string(s.index) + " of non-constant op " +
             std::to_string(s.owner);
    case Source::Kind::Constant:
      return s.text_value ? "constant " + *s.text_value
                          : "constant of type " + s.ir_value->type.str();
  }
  return "";
}

struct TextSide {
  std::vector<const TextOp*> ops;  // non-constant, preorder
  std::map<std::string, Source> sources;
  int blocks = 0;

  void add(const TextRegion& region) {
    int block = blocks++;
    for (size_t i = 0; i < region.args.size(); ++i)
      sources[region.args[i].name] = {Source::Kind::BlockArg, block, static_cast<int>(i)};
    for (const TextOp& op : region.ops) {
      if (op.name == "stablehlo.constant") {
        Source s{Source::Kind::Constant};
        if (const TextAttr* v = op.property("value")) s.text_value = &v->value;
        if (!op.results.empty()) sources[op.results[0]] = s;
        continue;
      }
      int ordinal = static_cast<int>(ops.size());
      ops.push_back(&op);
      for (size_t i = 0; i < op.results.size(); ++i)
        sources[op.results[i]] = {Source::Kind::OpResult, ordinal, static_cast<int>(i)};
      for (const TextRegion& nested : op.regions) add(nested);
    }
  }

  Source find(const std::string& name) const {
    auto it = sources.find(name);
    if (it == sources.end() && name.ends_with("#0"))
      it = sources.find(name.substr(0, name.size() - 2));
    return it == sources.end() ? Source{} : it->second;
  }
};

struct IrSide {
  std::vector<const ir::Op*> ops;
  std::unordered_map<ir::ValueId, Source> sources;
  int blocks = 0;

  void add(const ir::Region& region) {
    int block = blocks++;
    for (size_t i = 0; i < region.args.size(); ++i)
      sources[region.args[i]] = {Source::Kind::BlockArg, block, static_cast<int>(i)};
    for (const ir::Op& op : region.ops) {
      if (op.kind == ir::OpKind::Constant) {
        Source s{Source::Kind::Constant};
        s.ir_value = ir::findAttrAs<ir::DenseElements>(op.attrs, "value");
        if (!op.results.empty() && s.ir_value) sources[op.results[0]] = s;
        continue;
      }
      int ordinal = static_cast<int>(ops.size());
      ops.push_back(&op);
      for (size_t i = 0; i < op.results.size(); ++i)
        sources[op.results[i]] = {Source::Kind::OpResult, ordinal, static_cast<int>(i)};
      for (const ir::Region& nested : op.regions) add(nested);
    }
  }
};

// Properties the program text spells out but serialization drops because
// they hold the StableHLO default (the artifact text omits them too).
bool isDefaultProperty(const TextAttr& prop) {
  const std::string& name = prop.name;
  const std::string& value = prop.value;
  auto allOnes = [&] {
    std::optional<std::vector<int64_t>> v = parseIntArray(value);
    return v && std::all_of(v->begin(), v->end(), [](int64_t x) { return x == 1; });
  };
  if (name == "precision_config")
    return value.find("precision DEFAULT") != std::string::npos &&
           value.find("HIGH") == std::string::npos;
  if (name == "window_strides" || name == "lhs_dilation" || name == "rhs_dilation" ||
      name == "window_dilations" || name == "base_dilations")
    return allOnes();
  if (name == "window_reversal") {
    std::optional<std::vector<bool>> v = parseBoolArray(value);
    return v && std::none_of(v->begin(), v->end(), [](bool b) { return b; });
  }
  if (name == "indices_are_sorted" || name == "unique_indices" ||
      name == "has_side_effect")
    return value == "false";
  if (name == "backend_config") return value == "\"\"";
  if (name == "called_computations") return value == "[]";
  if (name == "api_version") return parseInteger(value) == 1;  // API_VERSION_ORIGINAL
  return false;
}

bool sameSource(const Source& text, const Source& ir) {
  if (text.kind != ir.kind) return false;
  if (text.kind != Source::Kind::Constant)
    return text.owner == ir.owner && text.index == ir.index;
  if (!text.text_value || !ir.ir_value) return false;
  std::optional<TextDense> dense = parseDense(*text.text_value);
  return dense && !denseMismatch(*dense, *ir.ir_value);
}

}  // namespace

void compareWiringModuloConstants(const TextOp& text_function,
                                  const ir::Function& function, const ir::Module& module,
                                  std::vector<std::string>& out) {
  if (text_function.regions.empty()) return;
  TextSide text;
  text.add(text_function.regions[0]);
  IrSide ir;
  ir.add(function.body);
  if (text.ops.size() != ir.ops.size()) return;  // the sequence check reports it
  for (size_t k = 0; k < text.ops.size(); ++k) {
    const TextOp& t = *text.ops[k];
    const ir::Op& op = *ir.ops[k];
    std::string where =
        "@" + function.name + " line " + std::to_string(t.line) + " " + t.name;
    if (!opNameMatches(t.name, op.kind)) return;  // reported by the sequence check
    if (t.result_types.size() != op.results.size()) {
      out.push_back(where + ": " + std::to_string(t.result_types.size()) +
                    " results in the text, " + std::to_string(op.results.size()) +
                    " imported");
    } else {
      for (size_t i = 0; i < op.results.size(); ++i)
        if (!typeMatches(t.result_types[i], module.typeOf(op.results[i])))
          out.push_back(where + ": result " + std::to_string(i) + " is " +
                        t.result_types[i].text + " in the text, " +
                        module.typeOf(op.results[i]).str() + " imported");
    }
    for (const TextAttr& prop : t.properties) {
      const ir::Attribute* attr = ir::findAttr(op.attrs, prop.name);
      if (!attr) {
        if (isDefaultProperty(prop)) continue;
        out.push_back(where + ": property " + prop.name + " missing from the import");
      } else if (std::optional<std::string> problem =
                     attributeMismatch(prop.value, *attr)) {
        out.push_back(where + ": property " + prop.name + ": " + *problem);
      }
    }
    if (t.operands.size() != op.operands.size()) {
      out.push_back(where + ": " + std::to_string(t.operands.size()) +
                    " operands in the text, " + std::to_string(op.operands.size()) +
                    " imported");
      continue;
    }
    for (size_t i = 0; i < op.operands.size(); ++i) {
      Source expected = text.find(t.operands[i]);
      auto it = ir.sources.find(op.operands[i]);
      Source got = it == ir.sources.end() ? Source{} : it->second;
      if (!sameSource(expected, got))
        out.push_back(where + ": operand " + std::to_string(i) + " (" + t.operands[i] +
                      ") is " + describe(expected) + " in the text, " + describe(got) +
                      " imported");
    }
  }
}

}  // namespace jft::conformance
