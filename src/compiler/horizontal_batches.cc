// Runs of small independent loop groups as one launch; see horizontal_batches.h.
#include "compiler/horizontal_batches.h"

#include <unordered_set>
#include <vector>

#include "codegen/ttir/horizontal.h"

namespace jft::compiler {
namespace {

// The group's one kernel when it may join a run, else null.
const codegen::ttir::TtirKernel* joinable(const fusion::Fusion& group,
                                          const codegen::GroupCode& code,
                                          const HorizontalLimits& limits) {
  if (group.route != fusion::Route::kTtir || group.family != fusion::Family::kLoop)
    return nullptr;
  if (code.call || code.kernels.size() != 1) return nullptr;
  const codegen::ttir::TtirKernel& kernel = code.kernels.front();
  if (kernel.isNative() || !kernel.scratch.empty() || kernel.grid[1] != 1 ||
      kernel.grid[2] != 1 || kernel.grid[0] == 0 ||
      kernel.grid[0] > limits.max_member_grid)
    return nullptr;
  // A module combineKernels cannot take apart stays a launch of its own.
  if (!codegen::ttir::checkJoinable(kernel).isOk()) return nullptr;
  return &kernel;
}

// Groups a run may pass over when they read none of its outputs: pure
// device work whose place among the members does not matter. Control flow,
// custom calls (callbacks may observe order) and collectives end a run.
bool passable(const fusion::Fusion& group) {
  return group.route == fusion::Route::kTtir || group.route == fusion::Route::kLibrary ||
         group.route == fusion::Route::kCopy || group.route == fusion::Route::kNative;
}

// Groups that do no work and define nothing a member could read through
// another name: constants and tokens.
bool onlyConstants(const ir::Function& scope, const fusion::Fusion& group) {
  if (group.route != fusion::Route::kNone) return false;
  for (size_t index : group.ops) {
    if (index >= scope.body.ops.size()) return false;
    const ir::OpKind kind = scope.body.ops[index].kind;
    if (kind != ir::OpKind::Constant && kind != ir::OpKind::AfterAll &&
        kind != ir::OpKind::CreateToken)
      return false;
  }
  return true;
}

class Run {
 public:
  explicit Run(RegionCode& code) : code_(code) {}

  bool empty() const { return members_.empty(); }
  size_t size() const { return members_.size(); }

  bool readsOutputOf(const fusion::Fusion& group) const {
    for (ir::ValueId input : group.inputs)
      if (outputs_.count(input) != 0) return true;
    return false;
  }

  void add(size_t g, const codegen::ttir::TtirKernel& kernel) {
    members_.push_back(g);
    outputs_.insert(kernel.outputs.begin(), kernel.outputs.end());
  }

  // The run's kernels as one, in its last group's place.
  Status close() {
    std::vector<size_t> members = std::move(members_);
    members_.clear();
    outputs_.clear();
    if (members.size() < 2) return Status::ok();
    std::vector<codegen::ttir::TtirKernel> kernels;
    for (size_t g : members) kernels.push_back(code_.groups[g].kernels.front());
    const std::string name = "hfusion_" + kernels.front().name;
    JFT_ASSIGN_OR_RETURN(codegen::ttir::TtirKernel combined,
                         codegen::ttir::combineKernels(kernels, name));
    for (size_t g : members) {
      codegen::GroupCode& member = code_.groups[g];
      member.unjoined = std::move(member.kernels);
      member.kernels.clear();
      member.joined = name;
    }
    code_.groups[members.back()].kernels = {std::move(combined)};
    return Status::ok();
  }

 private:
  RegionCode& code_;
  std::vector<size_t> members_;
  std::unordered_set<ir::ValueId> outputs_;
};

}  // namespace

Status combineHorizontally(const ir::Function& scope, RegionCode& code,
                           const HorizontalLimits& limits) {
  if (code.groups.size() != code.plan.fusions.size())
    return internalError("horizontal fusion before every group was lowered");
  Run run(code);
  for (size_t g = 0; g < code.groups.size(); ++g) {
    const fusion::Fusion& group = code.plan.fusions[g];
    if (onlyConstants(scope, group)) continue;
    const codegen::ttir::TtirKernel* kernel = joinable(group, code.groups[g], limits);
    const bool reads_run = run.readsOutputOf(group);
    if (kernel == nullptr) {
      // The run's launch moves past this group: only if it reads nothing the
      // run writes.
      if (reads_run || !passable(group)) JFT_RETURN_IF_ERROR(run.close());
      continue;
    }
    if (reads_run || run.size() >= limits.max_members) JFT_RETURN_IF_ERROR(run.close());
    run.add(g, *kernel);
  }
  return run.close();
}

}  // namespace jft::compiler
