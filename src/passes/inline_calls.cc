#include "passes/inline_calls.h"

#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "passes/clone_region.h"
#include "passes/unused_functions.h"

namespace jft::passes {
namespace {

using ir::OpKind;

constexpr const char* kCompositeTag = "jft.composite";

class Inliner {
 public:
  Inliner(ir::Module& module, const InlineOptions& options)
      : module_(module), options_(options) {}

  StatusOr<bool> run() {
    // Inlining reads other functions' bodies and never adds or removes
    // functions, so indices stay valid while bodies change.
    for (size_t i = 0; i < module_.functions.size(); ++i) {
      std::vector<std::string> path = {module_.functions[i].name};
      JFT_RETURN_IF_ERROR(region(module_.functions[i].body, path));
    }
    if (removeUnusedFunctions(module_)) changed_ = true;
    return changed_;
  }

 private:
  bool shouldInline(const ir::Op& op) const {
    if (op.kind == OpKind::Call) return true;
    if (op.kind != OpKind::Composite) return false;
    return !(options_.keep_composite && options_.keep_composite(op));
  }

  Status region(ir::Region& region, std::vector<std::string>& path) {
    std::vector<ir::Op> ops;
    ops.reserve(region.ops.size());
    for (ir::Op& op : region.ops) {
      for (ir::ValueId& operand : op.operands) operand = renamed(operand);
      for (ir::Region& nested : op.regions)
        JFT_RETURN_IF_ERROR(this->region(nested, path));
      if (!shouldInline(op)) {
        ops.push_back(std::move(op));
        continue;
      }
      JFT_RETURN_IF_ERROR(inlineOne(op, path, ops));
      changed_ = true;
    }
    region.ops = std::move(ops);
    return Status::ok();
  }

  // Appends the callee's body, with `call`'s operands for its arguments, to
  // `out`, and records that the call's results are the values it returns.
  Status inlineOne(const ir::Op& call, std::vector<std::string>& path,
                   std::vector<ir::Op>& out) {
    const bool is_call = call.kind == OpKind::Call;
    const char* attr = is_call ? "callee" : "decomposition";
    const auto* symbol = ir::findAttrAs<ir::SymbolRef>(call.attrs, attr);
    if (!symbol) return error(call, "has no '" + std::string(attr) + "' function");
    const ir::Function* callee = module_.findFunction(symbol->name);
    if (!callee)
      return error(call, "refers to @" + symbol->name + ", which does not exist");
    for (const std::string& caller : path)
      if (caller == callee->name)
        return error(call, "recursive call: " + pathText(path, callee->name));
    if (static_cast<int>(path.size()) > options_.max_depth)
      return error(call, "calls nest deeper than " + std::to_string(options_.max_depth) +
                             ": " + pathText(path, callee->name));
    JFT_RETURN_IF_ERROR(checkSignature(call, *callee));

    ValueRenaming renaming;
    for (size_t i = 0; i < call.operands.size(); ++i)
      renaming[callee->body.args[i]] = call.operands[i];
    ir::Region copy;
    copy.ops = cloneOps(module_, callee->body, renaming);
    path.push_back(callee->name);
    Status inlined = region(copy, path);
    path.pop_back();
    JFT_RETURN_IF_ERROR(inlined);
    if (copy.ops.empty() || copy.ops.back().kind != OpKind::Return)
      return error(call, "@" + callee->name + " does not end in a return");

    const ir::Op& ret = copy.ops.back();
    if (ret.operands.size() != call.results.size())
      return error(call, "@" + callee->name + " returns " +
                             std::to_string(ret.operands.size()) + " values for " +
                             std::to_string(call.results.size()) + " results");
    for (size_t i = 0; i < ret.operands.size(); ++i)
      renaming_[call.results[i]] = ret.operands[i];
    const std::string* composite_name =
        is_call ? nullptr : ir::findAttrAs<std::string>(call.attrs, "name");
    copy.ops.pop_back();
    for (ir::Op& op : copy.ops) {
      relocate(op, call.loc);
      if (composite_name && !ir::findAttr(op.attrs, kCompositeTag))
        op.attrs.emplace_back(kCompositeTag, *composite_name);
      out.push_back(std::move(op));
    }
    return Status::ok();
  }

  Status checkSignature(const ir::Op& call, const ir::Function& callee) const {
    const std::vector<ir::ValueId>& params = callee.body.args;
    bool matches = params.size() == call.operands.size() &&
                   callee.result_types.size() == call.results.size();
    for (size_t i = 0; matches && i < params.size(); ++i)
      matches = module_.typeOf(params[i]) == module_.typeOf(call.operands[i]);
    for (size_t i = 0; matches && i < call.results.size(); ++i)
      matches = module_.typeOf(call.results[i]) == callee.result_types[i];
    if (matches) return Status::ok();
    return error(call, "operands or results do not match @" + callee.name);
  }

  // Inlined ops point at their own line through the call site.
  void relocate(ir::Op& op, ir::LocId call_loc) {
    op.loc = callSite(op.loc, call_loc);
    for (ir::Region& region : op.regions)
      for (ir::Op& nested : region.ops) relocate(nested, call_loc);
  }

  ir::LocId callSite(ir::LocId callee_loc, ir::LocId call_loc) {
    if (call_loc == ir::kUnknownLoc) return callee_loc;
    if (callee_loc == ir::kUnknownLoc) return call_loc;
    auto [it, inserted] =
        call_sites_.try_emplace({callee_loc, call_loc}, ir::kUnknownLoc);
    if (inserted) {
      ir::Location site;
      site.kind = ir::Location::Kind::CallSite;
      site.children = {callee_loc, call_loc};
      it->second = module_.locations.add(std::move(site));
    }
    return it->second;
  }

  ir::ValueId renamed(ir::ValueId value) const {
    auto it = renaming_.find(value);
    return it == renaming_.end() ? value : it->second;
  }

  static std::string pathText(const std::vector<std::string>& path,
                              const std::string& next) {
    std::string text;
    for (const std::string& name : path) text += "@" + name + " -> ";
    return text + "@" + next;
  }

  Status error(const ir::Op& call, const std::string& problem) const {
    const char* what = call.kind == OpKind::Call ? "func.call" : "stablehlo.composite";
    return invalidArgument(std::string(what) + " at " +
                           module_.locations.describe(call.loc) + ": " + problem);
  }

  ir::Module& module_;
  const InlineOptions& options_;
  // Results of inlined calls to the values that replace them (lookups only).
  std::unordered_map<ir::ValueId, ir::ValueId> renaming_;
  std::map<std::pair<ir::LocId, ir::LocId>, ir::LocId> call_sites_;
  bool changed_ = false;
};

}  // namespace

StatusOr<bool> inlineCalls(ir::Module& module, const InlineOptions& options) {
  return Inliner(module, options).run();
}

}  // namespace jft::passes
