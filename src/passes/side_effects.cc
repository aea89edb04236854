#include "passes/side_effects.h"

#include <set>
#include <string>

namespace jft::passes {
namespace {

using ir::OpKind;

bool isEffectfulKind(const ir::Op& op) {
  switch (op.kind) {
    case OpKind::Send:
    case OpKind::Recv:
    case OpKind::Infeed:
    case OpKind::Outfeed:
    case OpKind::AllGather:
    case OpKind::AllReduce:
    case OpKind::AllToAll:
    case OpKind::ReduceScatter:
    case OpKind::CollectivePermute:
    case OpKind::CollectiveBroadcast:
    case OpKind::CrossReplicaSum:
    case OpKind::Rng:
    case OpKind::RngBitGenerator:
      return true;
    case OpKind::CustomCall: {
      // jax.lax.dce_sink is marked effectful only to keep its operand from
      // being removed; it has no results and computes nothing.
      const auto* target = ir::findAttrAs<std::string>(op.attrs, "call_target_name");
      if (target && *target == "dce_sink" && op.results.empty()) return false;
      const bool* flag = ir::findAttrAs<bool>(op.attrs, "has_side_effect");
      return flag && *flag;
    }
    default:
      return false;
  }
}

// The function a call or composite runs, by its symbol attribute.
const ir::Function* calledFunction(const ir::Module& module, const ir::Op& op) {
  const char* attr = op.kind == OpKind::Call        ? "callee"
                     : op.kind == OpKind::Composite ? "decomposition"
                                                    : nullptr;
  if (!attr) return nullptr;
  const auto* symbol = ir::findAttrAs<ir::SymbolRef>(op.attrs, attr);
  return symbol ? module.findFunction(symbol->name) : nullptr;
}

class EffectSearch {
 public:
  explicit EffectSearch(const ir::Module& module) : module_(module) {}

  bool op(const ir::Op& op) {
    if (isEffectfulKind(op)) return true;
    for (const ir::Region& region : op.regions)
      if (this->region(region)) return true;
    if (op.kind != OpKind::Call && op.kind != OpKind::Composite) return false;
    const ir::Function* callee = calledFunction(module_, op);
    // An unknown callee cannot be proven pure.
    if (!callee) return true;
    // A function searched before was pure (or is on the path: recursion).
    if (!searched_.insert(callee->name).second) return false;
    return region(callee->body);
  }

 private:
  bool region(const ir::Region& region) {
    for (const ir::Op& nested : region.ops)
      if (op(nested)) return true;
    return false;
  }

  const ir::Module& module_;
  std::set<std::string> searched_;
};

}  // namespace

bool hasSideEffect(const ir::Module& module, const ir::Op& op) {
  return EffectSearch(module).op(op);
}

}  // namespace jft::passes
