#include "passes/cse.h"

#include <unordered_map>
#include <vector>

#include "passes/local_rewriter.h"
#include "passes/op_equivalence.h"
#include "passes/side_effects.h"

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
      auto bucket = scope->find(hash);
      if (bucket == scope->end()) continue;
      for (const ir::Op* earlier : bucket->second) {
        if (!equivalentOps(module, *earlier, op)) continue;
        context.replaceOp(op, earlier->results);
        return true;
      }
    }
    scopes_.back()[hash].push_back(&op);
    return false;
  }

  void enterRegion() override { scopes_.emplace_back(); }
  void exitRegion() override { scopes_.pop_back(); }

 private:
  static bool isMergeable(const ir::Module& module, const ir::Op& op) {
    if (op.results.empty() || op.kind == ir::OpKind::OptimizationBarrier) return false;
    return !hasSideEffect(module, op);
  }

  std::vector<std::unordered_map<size_t, std::vector<const ir::Op*>>> scopes_;
};

}  // namespace

bool eliminateCommonSubexpressions(ir::Module& module) {
  CommonSubexpressions cse;
  return RewriteContext(module).run(cse);
}

}  // namespace jft::passes
