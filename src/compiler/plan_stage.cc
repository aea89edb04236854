// Plan options and the plan check (see plan_stage.h).
#include "compiler/plan_stage.h"

#include "codegen/library/library_calls.h"
#include "codegen/ttir/capability.h"
#include "compiler/control_regions.h"
#include "compiler/unsupported_ops.h"

namespace jft::compiler {

fusion::PlanOptions planOptions(const ir::Module& module, const Options& options,
                                const AutotuneResult& tuned) {
  fusion::PlanOptions plan_options = codegen::ttir::withTtir();
  plan_options.library_route = true;  // dots; other library ops are rejected below
  plan_options.control_route = true;  // while/case/if; their regions planned below
  // Collectives, replica_id and partition_id of a program over several
  // participants: one NCCL call or id write each, legal in every mode
  // (fl_only included: they move and combine data between devices, not
  // numeric work that escaped TTIR). With one participant the passes left
  // none, so the route stays off and anything left would be reported.
  plan_options.collective_route =
      passes::ParticipantGrid{options.num_replicas, options.num_partitions}
          .participants() > 1;
  // Custom calls for XLA FFI handlers (host callbacks, jax.ffi targets): a
  // handler call in queue order, legal in every mode (not numeric work of
  // ours); the handler is found when the program is loaded.
  plan_options.custom_call_route = true;
  plan_options.matmul = options.matmul;
  plan_options.attention = options.attention;
  plan_options.recompute_elementwise = options.recompute;
  plan_options.conv = options.conv;
  // Native mode compiles no TTIR: the cost model's choice between the TTIR
  // matmul/conv families and the library is no choice there.
  if (options.mode == Mode::kNative) {
    if (plan_options.matmul == fusion::MatmulRoute::kAuto)
      plan_options.matmul = fusion::MatmulRoute::kLibrary;
    if (plan_options.conv == fusion::ConvRoute::kAuto)
      plan_options.conv = fusion::ConvRoute::kLibrary;
  }
  plan_options.matmul_decisions = options.matmul_routes;
  if (options.conv_library != nullptr)
    plan_options.conv_library_takes = [&module,
                                       library = options.conv_library](const ir::Op& op) {
      return codegen::library::libraryTakesConvolution(module, op, *library);
    };
  plan_options.library_takes_call = [&module](const ir::Op& op) {
    return codegen::library::libraryTakesCall(module, op);
  };
  plan_options.matmul_decisions.insert(tuned.routes.begin(), tuned.routes.end());
  return plan_options;
}

Status planRegionsAndCheck(const ir::Module& module, const ir::Function& function,
                           RegionCode& top, const fusion::PlanOptions& plan_options,
                           const Options& options, const Backends& backends) {
  top.native_reasons = backends.routeNative(module, function, top.plan);
  std::vector<fusion::UnsupportedOp> unsupported = top.plan.unsupported;
  {
    std::vector<fusion::UnsupportedOp> more =
        backends.rejects(module, function, top.plan);
    unsupported.insert(unsupported.end(), more.begin(), more.end());
  }
  // The regions of control ops, planned like the function (recursively).
  if (hasControl(top.plan)) {
    top.scope = function;
    planControlRegions(module, top, plan_options, backends, unsupported);
  }
  if (!unsupported.empty())
    return unsupportedOpsError(module, function, options.mode, std::move(unsupported));
  return Status::ok();
}

}  // namespace jft::compiler
