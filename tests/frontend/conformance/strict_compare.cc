// compareStrict: the artifact text against the import, op by op.
#include <map>

#include "attr_compare.h"
#include "conformance_check.h"
#include "function_header_compare.h"
#include "ir_match.h"
#include "value_numbering.h"

namespace jft::conformance {
namespace {

std::string frameText(const std::optional<FileFrame>& f) {
  if (!f) return "no file location";
  return f->file + ":" + std::to_string(f->line) + ":" + std::to_string(f->col);
}

std::optional<FileFrame> irFrame(const ir::Module& module, ir::LocId loc) {
  std::optional<ir::FileLocation> f = module.locations.userFrame(loc);
  if (!f) return std::nullopt;
  return FileFrame{f->file, f->line, f->col};
}

class StrictComparer {
 public:
  StrictComparer(const TextModule& text, const ir::Module& module,
                 std::vector<std::string>& out)
      : text_(text), module_(module), out_(out) {}

  void run() {
    compareModuleName(text_, module_, out_);
    std::vector<std::string> text_order, ir_order;
    for (const TextOp* f : text_.functions()) {
      std::string name = textFunctionName(*f);
      text_order.push_back(name);
      const ir::Function* function = module_.findFunction(name);
      if (!function) {
        out_.push_back("@" + name + ": function missing from the import");
        continue;
      }
      compareFunction(*f, *function);
    }
    for (const ir::Function& f : module_.functions) {
      ir_order.push_back(f.name);
      bool known = false;
      for (const std::string& name : text_order) known = known || name == f.name;
      if (!known) out_.push_back("@" + f.name + ": function not in the text");
    }
    if (text_order != ir_order && text_order.size() == ir_order.size())
      out_.push_back("functions are in another order than in the text");
  }

 private:
  void compareFunction(const TextOp& text, const ir::Function& function) {
    compareFunctionHeader(text, function, module_, out_);
    compareLoc("@" + function.name + " (line " + std::to_string(text.line) + ")",
               text.loc, function.loc);
    if (text.regions.empty()) return;
    text_defs_ = numberTextFunction(text);
    ir_defs_ = numberIrFunction(function);
    compareRegion("@" + function.name, text.regions[0], function.body);
  }

  void compareLoc(const std::string& where, LocRef text_loc, ir::LocId ir_loc) {
    if (text_loc == kNoLoc) return;
    std::optional<FileFrame> expected = text_.userFrame(text_loc);
    std::optional<FileFrame> got = irFrame(module_, ir_loc);
    if (expected != got)
      out_.push_back(where + ": location " + frameText(expected) + " in the text, " +
                     frameText(got) + " imported");
  }

  void compareRegion(const std::string& where, const TextRegion& text,
                     const ir::Region& region) {
    if (text.args.size() != region.args.size()) {
      out_.push_back(where + ": block has " + std::to_string(text.args.size()) +
                     " arguments in the text, " + std::to_string(region.args.size()) +
                     " imported");
    } else {
      for (size_t i = 0; i < text.args.size(); ++i)
        if (!typeMatches(text.args[i].type, module_.typeOf(region.args[i])))
          out_.push_back(where + ": block argument " + std::to_string(i) + " is " +
                         text.args[i].type.text + " in the text, " +
                         module_.typeOf(region.args[i]).str() + " imported");
    }
    if (text.ops.size() != region.ops.size())
      out_.push_back(where + ": " + std::to_string(text.ops.size()) +
                     " ops in the text, " + std::to_string(region.ops.size()) +
                     " imported");
    size_t n = std::min(text.ops.size(), region.ops.size());
    for (size_t i = 0; i < n; ++i) {
      const TextOp& t = text.ops[i];
      const ir::Op& op = region.ops[i];
      if (!opNameMatches(t.name, op.kind)) {
        out_.push_back(where + ": op " + std::to_string(i) + " (line " +
                       std::to_string(t.line) + ") is " + t.name + " in the text, " +
                       std::string(ir::opKindName(op.kind)) +
                       " imported; the rest of this region is not compared");
        return;
      }
      compareOp(where + " line " + std::to_string(t.line) + " " + t.name, t, op);
    }
  }

  void compareOp(const std::string& where, const TextOp& text, const ir::Op& op) {
    if (text.results.size() != op.results.size()) {
      out_.push_back(where + ": " + std::to_string(text.results.size()) +
                     " results in the text, " + std::to_string(op.results.size()) +
                     " imported");
    } else {
      for (size_t i = 0; i < op.results.size() && i < text.result_types.size(); ++i)
        if (!typeMatches(text.result_types[i], module_.typeOf(op.results[i])))
          out_.push_back(where + ": result " + std::to_string(i) + " is " +
                         text.result_types[i].text + " in the text, " +
                         module_.typeOf(op.results[i]).str() + " imported");
    }
    compareOperands(where, text, op);
    for (const TextAttr& prop : text.properties) {
      const ir::Attribute* attr = ir::findAttr(op.attrs, prop.name);
      if (!attr) {
        out_.push_back(where + ": property " + prop.name + " missing from the import");
        continue;
      }
      if (std::optional<std::string> problem = attributeMismatch(prop.value, *attr))
        out_.push_back(where + ": property " + prop.name + ": " + *problem);
    }
    // Discardable attributes (mhlo.frontend_attributes, sdy.sharding_rule...)
    // are kept by the import, opaque where not interpreted.
    for (const TextAttr& attr : text.attributes) {
      const ir::Attribute* got = ir::findAttr(op.attrs, attr.name);
      if (!got) {
        out_.push_back(where + ": attribute " + attr.name + " missing from the import");
        continue;
      }
      if (std::optional<std::string> problem = attributeMismatch(attr.value, *got))
        out_.push_back(where + ": attribute " + attr.name + ": " + *problem);
    }
    compareLoc(where, text.loc, op.loc);
    if (text.regions.size() != op.regions.size()) {
      out_.push_back(where + ": " + std::to_string(text.regions.size()) +
                     " regions in the text, " + std::to_string(op.regions.size()) +
                     " imported");
      return;
    }
    for (size_t r = 0; r < op.regions.size(); ++r)
      compareRegion(where + " region " + std::to_string(r), text.regions[r],
                    op.regions[r]);
  }

  void compareOperands(const std::string& where, const TextOp& text, const ir::Op& op) {
    if (text.operands.size() != op.operands.size()) {
      out_.push_back(where + ": " + std::to_string(text.operands.size()) +
                     " operands in the text, " + std::to_string(op.operands.size()) +
                     " imported");
      return;
    }
    for (size_t i = 0; i < op.operands.size(); ++i) {
      const DefKey* expected = findTextDef(text_defs_, text.operands[i]);
      auto got = ir_defs_.find(op.operands[i]);
      DefKey got_key = got == ir_defs_.end() ? DefKey{} : got->second;
      if (!expected) {
        out_.push_back(where + ": operand " + text.operands[i] +
                       " is not defined in the text");
      } else if (!(*expected == got_key)) {
        out_.push_back(where + ": operand " + std::to_string(i) + " (" +
                       text.operands[i] + ") is " + describeDef(*expected) +
                       " in the text, " + describeDef(got_key) + " imported");
      }
    }
  }

  const TextModule& text_;
  const ir::Module& module_;
  std::vector<std::string>& out_;
  std::map<std::string, DefKey> text_defs_;
  std::unordered_map<ir::ValueId, DefKey> ir_defs_;
};

}  // namespace

std::vector<std::string> compareStrict(const TextModule& text, const ir::Module& module) {
  std::vector<std::string> out;
  StrictComparer(text, module, out).run();
  return out;
}

}  // namespace jft::conformance
