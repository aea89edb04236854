#include "passes/cse.h"

#include <unordered_map>
#include <vector>

#include "passes/local_rewriter.h"
#include "passes/op_equivalence.h"
#include "passes/side_effects.h"
#include "passes/sink_constants.h"

namespace jft::passes {
namespace {

class CommonSubexpressions : public LocalRewriter {
 public:
  bool rewrite(RewriteContext& context, ir::Op& op) override {
    const ir::Module& module = context.module();
    if (!isMergeable(module, op)) return false;
    const size_t hash = opHash(module, op);
    // Innermost scope first; candidates in program order. The maps are only
    // looked up, never iterated, so their order cannot reach the output.
    for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope) {
      auto bucket = scope->values.find(hash);
      if (bucket != scope->values.end()) {
        for (const ir::Op* earlier : bucket->second) {
          if (!equivalentOps(module, *earlier, op)) continue;
          context.replaceOp(op, earlier->results);
          return true;
        }
      }
      if (scope->closed) break;
    }
    scopes_.back().values[hash].push_back(&op);
    return false;
  }

  // A reduction, sort or scatter region is a function of its arguments
  // (StableHLO's `body` computations): merging one of its ops with an equal op
  // outside would make it read a value from outside, which its emitters
  // cannot. Control-flow regions (while, case, if) may read enclosing values.
  void enterRegion(const ir::Op* owner) override {
    scopes_.push_back(Scope{.closed = owner != nullptr && isClosedRegionOwner(*owner)});
  }
  void exitRegion() override { scopes_.pop_back(); }

 private:
  static bool isMergeable(const ir::Module& module, const ir::Op& op) {
    if (op.results.empty() || op.kind == ir::OpKind::OptimizationBarrier) return false;
    return !hasSideEffect(module, op);
  }

  struct Scope {
    bool closed = false;
    std::unordered_map<size_t, std::vector<const ir::Op*>> values;
  };
  std::vector<Scope> scopes_;
};

}  // namespace

bool eliminateCommonSubexpressions(ir::Module& module) {
  CommonSubexpressions cse;
  return RewriteContext(module).run(cse);
}

}  // namespace jft::passes
