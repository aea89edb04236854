#include "ir/verifier.h"

#include <set>

#include "ir/verify_op.h"

namespace jft::ir {
namespace {

// Value ids out of range would make every later lookup unsafe, so they are
// found first; a module with any gets only this check.
class IdRangeCheck {
 public:
  IdRangeCheck(const Module& module, ErrorList& errors)
      : module_(module), errors_(errors) {}

  bool run() {
    for (const Function& function : module_.functions) region(function.body, function);
    return ok_;
  }

 private:
  void region(const Region& region, const Function& function) {
    for (ValueId arg : region.args) check(arg, function, "a region argument");
    for (const Op& op : region.ops) {
      for (ValueId v : op.operands) check(v, function, opDisplayName(op.kind, false));
      for (ValueId v : op.results) check(v, function, opDisplayName(op.kind, false));
      for (const Region& nested : op.regions) this->region(nested, function);
    }
  }

  void check(ValueId id, const Function& function, const std::string& where) {
    if (id < module_.numValues()) return;
    ok_ = false;
    errors_.add("func.func @" + function.name + ": " + where + " refers to value %v" +
                std::to_string(id) + ", which the module does not have");
  }

  const Module& module_;
  ErrorList& errors_;
  bool ok_ = true;
};

class ModuleVerifier {
 public:
  ModuleVerifier(const Module& module, ErrorList& errors)
      : module_(module),
        errors_(errors),
        defined_(module.numValues(), false),
        visible_(module.numValues(), 0) {}

  void run() {
    std::set<std::string> names;
    for (const Function& function : module_.functions) {
      if (!names.insert(function.name).second)
        functionError(function, "a function with this name is already defined");
      verifyBody(function);
    }
  }

 private:
  void functionError(const Function& function, const std::string& rule) {
    errors_.add("func.func @" + function.name + " at " +
                module_.locations.describe(function.loc) + ": " + rule);
  }

  void verifyBody(const Function& function) {
    if (function.body.ops.empty()) return functionError(function, "body is empty");
    if (function.body.ops.back().kind != OpKind::Return)
      functionError(function, "body does not end in func.return");
    region(function.body, &function);
  }

  // Values of `region` become visible for its ops and nested regions, and
  // stop being visible when it ends.
  void region(const Region& region, const Function* function) {
    std::vector<ValueId> scope;
    for (ValueId arg : region.args) define(arg, scope, nullptr, function);
    for (size_t i = 0; i < region.ops.size(); ++i) {
      const Op& op = region.ops[i];
      OpVerifier v(module_, op, errors_, function != nullptr);
      for (size_t k = 0; k < op.operands.size(); ++k)
        if (!visible_[op.operands[k]])
          v.fail("operand #" + std::to_string(k) +
                 " is used before its definition or outside its scope");
      if (op.kind == OpKind::Return && i + 1 != region.ops.size())
        v.fail("must be the last op of its region");
      for (size_t r = 0; r < op.regions.size(); ++r) {
        const Region& nested = op.regions[r];
        if (nested.ops.empty()) {
          v.fail("region #" + std::to_string(r) + " is empty");
        } else if (nested.ops.back().kind != OpKind::Return) {
          v.fail("region #" + std::to_string(r) + " does not end in stablehlo.return");
        }
        this->region(nested, nullptr);
      }
      for (ValueId result : op.results) define(result, scope, &op, function);
      verifyRules(v, function);
    }
    for (ValueId id : scope) --visible_[id];
  }

  void define(ValueId id, std::vector<ValueId>& scope, const Op* op,
              const Function* function) {
    if (defined_[id]) {
      const std::string rule =
          "value %v" + std::to_string(id) + " is defined more than once";
      if (op) {
        OpVerifier(module_, *op, errors_, function != nullptr).fail(rule);
      } else {
        errors_.add("region argument: " + rule);
      }
    }
    defined_[id] = true;
    ++visible_[id];
    scope.push_back(id);
  }

  void verifyRules(OpVerifier& v, const Function* function) {
    if (v.op().kind == OpKind::Return) {
      if (function) checkFunctionReturn(v, *function);
      return;  // returns of op regions are checked by the op owning the region
    }
    verifyElementwise(v);
    verifyShapeOp(v);
    verifyContraction(v);
    verifyIndexing(v);
    verifyRegionOp(v);
    verifyWindowOp(v);
    verifyLibraryOp(v);
    verifyPlumbing(v);
  }

  void checkFunctionReturn(OpVerifier& v, const Function& function) {
    std::vector<Type> returned;
    for (size_t i = 0; i < v.numOperands(); ++i) returned.push_back(v.operand(i));
    if (returned != function.result_types)
      v.fail("returns " + typesText(returned) + " but @" + function.name + " declares " +
             typesText(function.result_types));
  }

  const Module& module_;
  ErrorList& errors_;
  std::vector<bool> defined_;
  std::vector<uint32_t> visible_;
};

}  // namespace

Status verifyModule(const Module& module) {
  ErrorList errors;
  if (IdRangeCheck(module, errors).run()) ModuleVerifier(module, errors).run();
  if (errors.empty()) return Status::ok();
  return invalidArgument(errors.joined());
}

}  // namespace jft::ir
