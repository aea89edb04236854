// Executable: what a device tracer sees of an execution. Each top-level step
// runs under its run's and step's label (runtime/activity_scope.h), so the
// trace shows each run as a range and names a library's kernels after the
// step that called them. Labels are the route's words: the kernel's name
// (kernels are named after their fusion), the library call's description.
#include <string>

#include "runtime/executable.h"
#include "runtime/gemm.h"
#include "runtime/library_op.h"

namespace jft::runtime {

std::string Executable::stepLabel(const Program& program, const Step& step) const {
  switch (step.kind) {
    case Step::Kind::kLaunch: {
      const auto& launch = std::get<LaunchThunk>(program.thunks[step.thunk]);
      return program.kernels[launch.kernel].name;
    }
    case Step::Kind::kCopy:
      return "copy";
    case Step::Kind::kMemset:
      return "memset";
    case Step::Kind::kGemm:
      return "gemm " + gemmText(gemms_[step.gemm].gemm);
    case Step::Kind::kLibrary:
      return libraryOpText(libraries_[step.gemm].op);
    case Step::Kind::kWhile:
      return "while";
    case Step::Kind::kConditional:
      return "conditional";
    case Step::Kind::kCollective:
      return collectiveText(collectives_[step.gemm].desc);
    case Step::Kind::kParticipantId:
      return step.partition ? "partition_id" : "replica_id";
    case Step::Kind::kFfi:
      return "custom call " + ffi_calls_[step.gemm]->thunk.target;
  }
  return "step";
}

Status Executable::enqueueTraced(const ActivityScopeHooks& hooks,
                                 const std::string& where) {
  const uint64_t run = beginActivityRun(name_, step_labels_);
  for (size_t i = 0; i < steps_.size(); ++i) {
    ActivityScope scope(&hooks, activityId(run, i));
    Status status = enqueueStep(steps_[i]);
    if (!status.isOk())
      return status.withContext(where + "thunk " + std::to_string(steps_[i].thunk));
  }
  return Status::ok();
}

}  // namespace jft::runtime
