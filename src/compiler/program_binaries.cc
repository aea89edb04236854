// Binaries for every kernel of a program, and back_fail's move of the
// groups whose TTIR kernels fail (see program_binaries.h).
#include "compiler/program_binaries.h"

#include "compiler/control_regions.h"
#include "compiler/kernel_binaries.h"
#include "compiler/native_binaries.h"
#include "compiler/native_routing.h"

namespace jft::compiler {
namespace {

// A kernel's outcome; nullopt until it is built.
using Outcome = std::optional<StatusOr<KernelBinary>>;

// A body of the program with the function its ops are indexed in, in
// lowerProgram's order (the function, then nested regions, parents first).
struct Body {
  RegionCode* code;
  const ir::Function* scope;
};

std::vector<Body> bodiesOf(const ir::Function& function, RegionCode& top) {
  std::vector<Body> bodies{{&top, &function}};
  for (RegionCode* region : nestedRegions(top))
    bodies.push_back({region, &region->scope});
  return bodies;
}

std::string firstLine(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

// The index (into the program's kernels) of the first kernel of `made` that
// failed, or -1.
long firstFailure(const codegen::GroupCode& made, const std::vector<Outcome>& outcomes) {
  for (size_t k = 0; k < made.kernels.size(); ++k) {
    const size_t at = static_cast<size_t>(made.first_kernel) + k;
    if (at < outcomes.size() && outcomes[at] && !outcomes[at]->isOk())
      return static_cast<long>(at);
  }
  return -1;
}

// back_fail: each TTIR group with a failed kernel is lowered again by the
// native backend; a group the native emitter refuses keeps its failure, with
// the refusal added. True when some group moved (its GroupCode is new, with
// first_kernel -1).
bool moveFailedGroups(ir::Module& module, const std::vector<Body>& bodies,
                      std::vector<Outcome>& outcomes, const Backends& backends) {
  bool moved = false;
  for (const Body& body : bodies) {
    RegionCode& code = *body.code;
    for (size_t g = 0; g < code.groups.size() && g < code.plan.fusions.size(); ++g) {
      codegen::GroupCode& made = code.groups[g];
      fusion::Fusion& group = code.plan.fusions[g];
      if (group.route != fusion::Route::kTtir || made.first_kernel < 0) continue;
      const long failed = firstFailure(made, outcomes);
      if (failed < 0) continue;
      const Status failure = outcomes[static_cast<size_t>(failed)]->status();
      const fusion::Fusion as_planned = group;
      group = asNativeGroup(module, *body.scope, group);
      StatusOr<codegen::GroupCode> native =
          backends.native().lower(module, *body.scope, code.plan, g);
      if (!native.isOk()) {
        group = as_planned;
        outcomes[static_cast<size_t>(failed)] =
            Status(failure.code(), failure.message() +
                                       "\n    (XLA_MODE=back_fail: the native route "
                                       "cannot run it either: " +
                                       native.status().message() + ")");
        continue;
      }
      code.native_reasons[g] =
          "the TTIR kernel failed to compile: " + firstLine(failure.message());
      made = std::move(native).value();
      moved = true;
    }
  }
  return moved;
}

// A combined launch (horizontal_batches.h) whose kernel failed to compile is
// split back into its members' own kernels (GroupCode::unjoined), which are
// compiled on their own: combining never makes a program fail that compiles
// without it. True when some launch was split (its members' GroupCodes are
// new, with first_kernel -1).
bool splitFailedLaunches(const std::vector<Body>& bodies,
                         const std::vector<Outcome>& outcomes) {
  bool split = false;
  for (const Body& body : bodies) {
    std::vector<codegen::GroupCode>& groups = body.code->groups;
    for (const codegen::GroupCode& holder : groups) {
      if (holder.joined.empty() || holder.kernels.empty() ||
          firstFailure(holder, outcomes) < 0)
        continue;
      const std::string name = holder.joined;
      for (codegen::GroupCode& member : groups) {
        if (member.joined != name) continue;
        member.kernels = std::move(member.unjoined);
        member.unjoined.clear();
        member.joined.clear();
        member.first_kernel = -1;
      }
      split = true;
    }
  }
  return split;
}

// The program's kernel list again after groups moved: the kernels of the
// groups that kept theirs, with their outcomes, and the new ones (seen by
// `on_kernel`), each group's first_kernel set anew.
void renumber(const std::vector<Body>& bodies,
              std::vector<codegen::ttir::TtirKernel>& kernels,
              std::vector<Outcome>& outcomes,
              const std::function<void(const codegen::ttir::TtirKernel&)>& on_kernel) {
  std::vector<codegen::ttir::TtirKernel> list;
  std::vector<Outcome> kept;
  for (const Body& body : bodies)
    for (codegen::GroupCode& made : body.code->groups) {
      const int first = static_cast<int>(list.size());
      for (size_t k = 0; k < made.kernels.size(); ++k) {
        if (made.first_kernel >= 0) {
          const size_t at = static_cast<size_t>(made.first_kernel) + k;
          list.push_back(std::move(kernels[at]));
          kept.push_back(std::move(outcomes[at]));
        } else {
          on_kernel(made.kernels[k]);
          list.push_back(made.kernels[k]);
          kept.emplace_back();
        }
      }
      made.first_kernel = first;
    }
  kernels = std::move(list);
  outcomes = std::move(kept);
}

// The kernels of `kernels` without an outcome whose kind is `native`.
std::vector<size_t> pending(const std::vector<codegen::ttir::TtirKernel>& kernels,
                            const std::vector<Outcome>& outcomes, bool native) {
  std::vector<size_t> at;
  for (size_t i = 0; i < kernels.size(); ++i)
    if (!outcomes[i] && kernels[i].isNative() == native) at.push_back(i);
  return at;
}

std::vector<const codegen::ttir::TtirKernel*> pick(
    const std::vector<codegen::ttir::TtirKernel>& kernels,
    const std::vector<size_t>& at) {
  std::vector<const codegen::ttir::TtirKernel*> picked;
  for (size_t i : at) picked.push_back(&kernels[i]);
  return picked;
}

}  // namespace

StatusOr<KernelBinaries> buildProgramBinaries(
    ir::Module& module, const ir::Function& function, RegionCode& top,
    std::vector<codegen::ttir::TtirKernel>& kernels, const Options& options,
    const Backends& backends, kernel_compiler::KernelCompiler& kernel_compiler,
    const std::function<void(const codegen::ttir::TtirKernel&)>& on_kernel) {
  std::vector<Outcome> outcomes(kernels.size());
  auto compilePending = [&] {
    const std::vector<size_t> ttir = pending(kernels, outcomes, false);
    std::vector<StatusOr<KernelBinary>> built =
        compileTtirKernels(pick(kernels, ttir), options, kernel_compiler);
    for (size_t i = 0; i < ttir.size(); ++i) outcomes[ttir[i]] = std::move(built[i]);
  };
  compilePending();
  if (const std::vector<Body> bodies = bodiesOf(function, top);
      splitFailedLaunches(bodies, outcomes)) {
    renumber(bodies, kernels, outcomes, on_kernel);
    compilePending();
  }

  if (options.mode == Mode::kBackFail) {
    const std::vector<Body> bodies = bodiesOf(function, top);
    if (moveFailedGroups(module, bodies, outcomes, backends))
      renumber(bodies, kernels, outcomes, on_kernel);
  }

  KernelBinaries out;
  const std::vector<size_t> native = pending(kernels, outcomes, true);
  if (!native.empty()) {
    NativeBinaries made = compileNativeKernels(
        pick(kernels, native), options.native_compiler, &kernel_compiler.cache());
    for (size_t i = 0; i < native.size(); ++i)
      outcomes[native[i]] = std::move(made.kernels[i]);
    out.native_identity = std::move(made.identity);
  }

  std::string failures;
  StatusCode code = StatusCode::kOk;
  for (size_t i = 0; i < kernels.size(); ++i) {
    if (outcomes[i] && outcomes[i]->isOk()) {
      KernelBinary& binary = outcomes[i]->value();
      if (!kernels[i].isNative() && !out.identity) out.identity = binary.facts.compiler;
      out.images.push_back(std::move(binary.image));
      out.compiled.push_back(std::move(binary.facts));
      continue;
    }
    const Status failure =
        outcomes[i] ? outcomes[i]->status() : internalError("no binary was built");
    if (code == StatusCode::kOk) code = failure.code();
    failures += "\n  " + kernels[i].name + ": " + failure.toString();
  }
  if (failures.empty()) return out;
  return Status(code, kKernelCompilationFailed + failures);
}

}  // namespace jft::compiler
