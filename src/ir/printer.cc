#include "ir/printer.h"

#include <unordered_map>

#include "ir/attribute_printer.h"

namespace jft::ir {
namespace {

// SSA names of one function, given in the order printing meets definitions.
class ValueNames {
 public:
  void nameFunction(const Function& function) {
    nameArgs(function.body);
    nameOps(function.body);
  }

  // "%3", "%5#1", "%arg0"; "%v12" for values outside the named function.
  std::string use(ValueId id) const {
    auto it = names_.find(id);
    return it != names_.end() ? it->second : "%v" + std::to_string(id);
  }

  // The left-hand side of an op: "%3", "%5:2", or by id when unnamed.
  std::string definition(const Op& op) const {
    auto it = result_groups_.find(&op);
    if (it != result_groups_.end()) return it->second;
    std::string out;
    for (size_t i = 0; i < op.results.size(); ++i)
      out += (i ? ", " : "") + use(op.results[i]);
    return out;
  }

 private:
  void nameArgs(const Region& region) {
    for (ValueId arg : region.args) names_[arg] = "%arg" + std::to_string(next_arg_++);
  }

  void nameOps(const Region& region) {
    for (const Op& op : region.ops) {
      if (!op.results.empty()) {
        const std::string base = "%" + std::to_string(next_result_++);
        if (op.results.size() == 1) {
          names_[op.results[0]] = base;
          result_groups_[&op] = base;
        } else {
          for (size_t i = 0; i < op.results.size(); ++i)
            names_[op.results[i]] = base + "#" + std::to_string(i);
          result_groups_[&op] = base + ":" + std::to_string(op.results.size());
        }
      }
      for (const Region& nested : op.regions) {
        nameArgs(nested);
        nameOps(nested);
      }
    }
  }

  std::unordered_map<ValueId, std::string> names_;
  std::unordered_map<const Op*, std::string> result_groups_;
  int next_arg_ = 0;
  int next_result_ = 0;
};

class TextPrinter {
 public:
  TextPrinter(const Module& module, const PrintOptions& options, const ValueNames& names)
      : module_(module), options_(options), names_(names) {}

  void function(const Function& function, int indent) {
    out_ += std::string(indent, ' ') + "func.func " +
            (function.is_public ? "public @" : "private @") + function.name + "(";
    for (size_t i = 0; i < function.body.args.size(); ++i) {
      if (i) out_ += ", ";
      ValueId arg = function.body.args[i];
      out_ += names_.use(arg) + ": " + valueTypeText(module_, arg);
      appendArgAttrs(function.arg_attrs, i);
    }
    out_ += ")";
    appendFunctionResults(function);
    out_ += " {\n";
    ops(function.body, indent + 2, /*in_function_body=*/true);
    out_ += std::string(indent, ' ') + "}";
    appendLocation(function.loc);
    out_ += "\n";
  }

  void op(const Op& op, int indent, bool in_function_body) {
    out_ += std::string(indent, ' ');
    if (!op.results.empty()) out_ += names_.definition(op) + " = ";
    out_ += opName(op.kind, in_function_body);
    if (op.kind == OpKind::Return) {
      appendReturn(op);
      appendLocation(op.loc);
      out_ += "\n";
      return;
    }
    NamedAttrs attrs = op.attrs;
    appendOperands(op, attrs);
    if (!attrs.empty()) out_ += " " + printAttrDict(attrs, options_);
    appendRegions(op, indent);
    out_ += " : " + typeSignature(op);
    appendLocation(op.loc);
    out_ += "\n";
  }

  std::string take() { return std::move(out_); }
  std::string& out() { return out_; }

 private:
  static std::string opName(OpKind kind, bool in_function_body) {
    if (kind == OpKind::Call) return "call";
    if (kind == OpKind::Return && in_function_body) return "return";
    return "stablehlo." + std::string(opKindName(kind));
  }

  void ops(const Region& region, int indent, bool in_function_body) {
    for (const Op& nested : region.ops) op(nested, indent, in_function_body);
  }

  void appendReturn(const Op& op) {
    if (op.operands.empty()) return;
    out_ += " " + useList(op.operands) + " : ";
    for (size_t i = 0; i < op.operands.size(); ++i)
      out_ += (i ? ", " : "") + valueTypeText(module_, op.operands[i]);
  }

  // Operands, with the special spellings of call and constant; the
  // attributes those spellings consume are dropped from `attrs`.
  void appendOperands(const Op& op, NamedAttrs& attrs) {
    if (op.kind == OpKind::Call &&
        takeAttr<SymbolRef>(attrs, "callee", [&](const auto& s) {
          out_ += " @" + s.name + "(" + useList(op.operands) + ")";
        }))
      return;
    if (op.kind == OpKind::Constant && op.operands.empty() &&
        takeAttr<DenseElements>(attrs, "value", [&](const auto& d) {
          out_ += " " + printDenseLiteral(d, options_);
        }))
      return;
    if (!op.operands.empty()) out_ += " " + useList(op.operands);
  }

  template <typename T, typename Print>
  static bool takeAttr(NamedAttrs& attrs, std::string_view name, Print print) {
    for (auto it = attrs.begin(); it != attrs.end(); ++it) {
      if (it->first != name || !it->second.is<T>()) continue;
      print(it->second.as<T>());
      attrs.erase(it);
      return true;
    }
    return false;
  }

  void appendRegions(const Op& op, int indent) {
    if (op.regions.empty()) return;
    const std::string pad(indent, ' ');
    out_ += " (";
    for (size_t r = 0; r < op.regions.size(); ++r) {
      const Region& region = op.regions[r];
      out_ += r ? ", {\n" : "{\n";
      if (!region.args.empty()) {
        out_ += pad + "^bb0(";
        for (size_t i = 0; i < region.args.size(); ++i)
          out_ += (i ? ", " : "") + names_.use(region.args[i]) + ": " +
                  valueTypeText(module_, region.args[i]);
        out_ += "):\n";
      }
      ops(region, indent + 2, /*in_function_body=*/false);
      out_ += pad + "}";
    }
    out_ += ")";
  }

  std::string typeSignature(const Op& op) const {
    if (op.results.size() == 1) {
      const std::string result = valueTypeText(module_, op.results[0]);
      bool uniform = true;
      for (ValueId operand : op.operands)
        uniform = uniform && valueTypeText(module_, operand) == result;
      if (uniform) return result;
    }
    std::string out = "(";
    for (size_t i = 0; i < op.operands.size(); ++i)
      out += (i ? ", " : "") + valueTypeText(module_, op.operands[i]);
    out += ") -> ";
    if (op.results.size() == 1) return out + valueTypeText(module_, op.results[0]);
    out += "(";
    for (size_t i = 0; i < op.results.size(); ++i)
      out += (i ? ", " : "") + valueTypeText(module_, op.results[i]);
    return out + ")";
  }

  void appendFunctionResults(const Function& function) {
    const size_t count = function.result_types.size();
    if (count == 0) return;
    auto hasAttrs = [&](size_t i) {
      return i < function.result_attrs.size() && !function.result_attrs[i].empty();
    };
    if (count == 1 && !hasAttrs(0)) {
      out_ += " -> " + function.result_types[0].str();
      return;
    }
    out_ += " -> (";
    for (size_t i = 0; i < count; ++i) {
      out_ += (i ? ", " : "") + function.result_types[i].str();
      appendArgAttrs(function.result_attrs, i);
    }
    out_ += ")";
  }

  void appendArgAttrs(const std::vector<NamedAttrs>& attrs, size_t index) {
    if (index < attrs.size() && !attrs[index].empty())
      out_ += " " + printAttrDict(attrs[index], options_);
  }

  void appendLocation(LocId loc) {
    if (!options_.print_locations) return;
    out_ += " loc(" +
            (options_.full_locations ? printLocation(module_.locations, loc)
                                     : printUserFrame(module_.locations, loc)) +
            ")";
  }

  std::string useList(const std::vector<ValueId>& values) const {
    std::string out;
    for (size_t i = 0; i < values.size(); ++i)
      out += (i ? ", " : "") + names_.use(values[i]);
    return out;
  }

  const Module& module_;
  const PrintOptions& options_;
  const ValueNames& names_;
  std::string out_;
};

}  // namespace

std::string valueTypeText(const Module& module, ValueId id) {
  if (id >= module.numValues()) return "<invalid value %v" + std::to_string(id) + ">";
  return module.typeOf(id).str();
}

std::string printFunction(const Module& module, const Function& function,
                          const PrintOptions& options) {
  ValueNames names;
  names.nameFunction(function);
  TextPrinter printer(module, options, names);
  printer.function(function, 0);
  return printer.take();
}

std::string printModule(const Module& module, const PrintOptions& options) {
  std::string out = "module";
  if (!module.name.empty()) out += " @" + module.name;
  if (!module.attrs.empty()) out += " attributes " + printAttrDict(module.attrs, options);
  out += " {\n";
  for (const Function& function : module.functions) {
    ValueNames names;
    names.nameFunction(function);
    TextPrinter printer(module, options, names);
    printer.function(function, 2);
    out += printer.take();
  }
  return out + "}\n";
}

std::string printOp(const Module& module, const Op& op, const PrintOptions& options,
                    const Function* context) {
  ValueNames names;
  if (context) names.nameFunction(*context);
  TextPrinter printer(module, options, names);
  printer.op(op, 0, /*in_function_body=*/false);
  return printer.take();
}

}  // namespace jft::ir
