// A module built by hand for a planner test, and its plan: made with the TTIR
// backend's answers, after the module verifies, and checked against the
// plan's contract (plan_checks.h).
#pragma once

#include <string>

#include "codegen/ttir/capability.h"
#include "fusion/fusion.h"
#include "fusion_test_util.h"
#include "ir/module.h"
#include "plan_checks.h"

namespace jft::fusion::testing {

struct Built {
  ir::Module m;
  const ir::Function& main() const { return *m.findFunction("main"); }
  std::string text(const Plan& plan) const { return describePlan(m, main(), plan); }
};

inline Plan planAndCheck(const Built& built, const PlanOptions& options = {}) {
  expectVerifies(built.m);
  Plan plan = planFusions(built.m, built.main(), ::jft::codegen::ttir::withTtir(options));
  checkPlan(built.m, built.main(), plan, options.recompute_elementwise);
  return plan;
}

}  // namespace jft::fusion::testing
