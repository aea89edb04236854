// compile(): the pipeline, stage by stage (see compiler.h).
#include <chrono>
#include <iostream>

#include "codegen/library/collective_call.h"
#include "codegen/library/cudnn_conv.h"
#include "codegen/library/library_calls.h"
#include "codegen/ttir/kernel.h"
#include "compiler/compile_tree.h"
#include "compiler/compiler.h"
#include "compiler/control_regions.h"
#include "compiler/fingerprint.h"
#include "compiler/input_output_alias.h"
#include "compiler/kernel_binaries.h"
#include "compiler/matmul_autotune.h"
#include "compiler/module_dump.h"
#include "compiler/program_assembly.h"
#include "compiler/route_report.h"
#include "compiler/unsupported_ops.h"
#include "frontend/bytecode/reader.h"
#include "frontend/vhlo/import.h"
#include "fusion/fusion.h"
#include "fusion/matmul_form.h"
#include "fusion/ttir_support.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "passes/pipeline.h"

namespace jft::compiler {
namespace {

using namespace codegen::library;

// Dumps are a debugging aid: a failing write is reported once and the
// compile goes on.
class Dumper {
 public:
  explicit Dumper(ModuleDump dump) : dump_(std::move(dump)) {}
  void write(std::string_view file, std::string_view bytes) {
    if (!dump_.enabled() || failed_) return;
    Status status = dump_.write(file, bytes);
    if (!status.isOk()) {
      failed_ = true;
      std::cerr << "jax-flagtree: dump to " << dump_.directory()
                << " stopped: " << status.toString() << "\n";
    }
  }

 private:
  ModuleDump dump_;
  bool failed_ = false;
};

// The autotuner's note for the dot of `group`, if it measured one.
std::string autotuneNoteOf(const ir::Module& module, const ir::Function& scope,
                           const fusion::Fusion& group, const AutotuneResult& tuned) {
  if (tuned.notes.empty()) return "";
  for (size_t at : group.ops) {
    if (at >= scope.body.ops.size()) continue;
    const ir::Op& op = scope.body.ops[at];
    if (op.kind != ir::OpKind::DotGeneral) continue;
    auto it = tuned.notes.find(fusion::matmulSignature(module, op));
    if (it != tuned.notes.end()) return it->second;
  }
  return "";
}

std::string entryName(const ir::Module& module) {
  return module.name.empty() ? std::string("module") : module.name;
}

// The pipeline from the imported module on; `input` is what the
// executable's fingerprint covers (the bytecode, or the printed module).
StatusOr<Executable> compileImported(ir::Module module, std::string_view input,
                                     const Options& options,
                                     kernel_compiler::KernelCompiler* kernel_compiler,
                                     Stages* stages, Dumper& dump) {
  dump.write("ir_imported.txt", ir::printModule(module));
  JFT_RETURN_IF_ERROR(ir::verifyModule(module));

  passes::PipelineOptions pass_options;
  pass_options.grid = {options.num_replicas, options.num_partitions};
  const bool several = pass_options.grid.participants() > 1;
  // Composites an emitter implements whole (chlo.scan) stay composites; the
  // rest are inlined into their decompositions.
  pass_options.inlining.keep_composite = [&module](const ir::Op& composite) {
    return fusion::ttirKeepsComposite(module, composite);
  };
  JFT_ASSIGN_OR_RETURN(passes::PipelineReport pass_report,
                       passes::runPasses(module, pass_options));
  std::string ir_text = ir::printModule(module);
  dump.write("passes.txt", passes::describeReport(pass_report));
  dump.write("ir_after_passes.txt", ir_text);
  if (Status valid = ir::verifyModule(module); !valid.isOk())
    return internalError("the IR passes broke the program: " + valid.message());
  if (stages != nullptr) stages->ir_after_passes = ir_text;

  const ir::Function* function = module.entry();
  if (function == nullptr)
    return invalidArgument(entryName(module) +
                           ": no entry function (no @main and not exactly one public "
                           "function)");
  // Measured choices for dots (--xla_gpu_autotune_level >= 1 with a
  // measurer); without them the cost model and the tile heuristic decide.
  AutotuneResult tuned;
  if (options.autotune_level > 0 && options.measurer != nullptr)
    tuned =
        autotuneMatmuls(module, *function, options, kernel_compiler, *options.measurer);
  if (!tuned.transcript.empty()) dump.write("autotune.txt", tuned.transcript);
  fusion::PlanOptions plan_options;
  plan_options.library_route = true;  // dots; other library ops are rejected below
  plan_options.control_route = true;  // while/case/if; their regions planned below
  // Collectives, replica_id and partition_id of a program over several
  // participants: one NCCL call or id write each, legal in every mode
  // (fl_only included: they move and combine data between devices, not
  // numeric work that escaped TTIR). With one participant the passes left
  // none, so the route stays off and anything left would be reported.
  plan_options.collective_route = several;
  // Custom calls for XLA FFI handlers (host callbacks, jax.ffi targets): a
  // handler call in queue order, legal in every mode (not numeric work of
  // ours); the handler is found when the program is loaded.
  plan_options.custom_call_route = true;
  plan_options.matmul = options.matmul;
  plan_options.conv = options.conv;
  plan_options.matmul_decisions = options.matmul_routes;
  if (options.conv_library != nullptr)
    plan_options.conv_library_takes = [&module,
                                       library = options.conv_library](const ir::Op& op) {
      StatusOr<CudnnConv> planned = cudnnConvOf(module, op);
      return planned.isOk() && library->check(planned->desc).isOk();
    };
  plan_options.matmul_decisions.insert(tuned.routes.begin(), tuned.routes.end());
  fusion::Plan plan = fusion::planFusions(module, *function, plan_options);
  std::string plan_text = fusion::describePlan(module, *function, plan);
  dump.write("plan.txt", plan_text);
  if (stages != nullptr) stages->plan = plan_text;

  std::vector<fusion::UnsupportedOp> unsupported = plan.unsupported;
  {
    std::vector<fusion::UnsupportedOp> more = libraryRejects(module, *function, plan);
    unsupported.insert(unsupported.end(), more.begin(), more.end());
  }
  // The regions of control ops, planned like the function (recursively).
  RegionCode top;
  top.plan = plan;
  if (hasControl(plan)) {
    top.scope = *function;
    planControlRegions(module, top, plan_options, unsupported);
  }
  if (options.mode == Mode::kNative) {
    std::vector<fusion::UnsupportedOp> more = nativeModeRejects(module, *function, plan);
    unsupported.insert(unsupported.end(), more.begin(), more.end());
  }
  if (!unsupported.empty())
    return unsupportedOpsError(module, *function, options.mode, std::move(unsupported));

  codegen::ttir::EmitOptions emit_options;
  emit_options.warp_size = options.target.warp_size;
  emit_options.deterministic = options.exclude_nondeterministic_ops;
  emit_options.matmul_tiles = options.matmul_tiles;
  emit_options.matmul_tiles.insert(tuned.tiles.begin(), tuned.tiles.end());
  std::vector<codegen::ttir::TtirKernel> kernels;
  std::vector<LibraryCall> library_calls;
  std::vector<std::string> collective_texts;  // per collective group, as lowered
  std::vector<std::string> ffi_texts;         // per custom-call group, as lowered
  const LibraryContext library_context{options.conv_library, options.conv, options.log};
  // Appends the group's kernels (one, or several launched in order, sharing
  // scratch buffers) and their launches.
  auto emit = [&](size_t g, const ir::Function& scope, const fusion::Fusion& group,
                  std::vector<KernelLaunch>& launches,
                  bool after_library = false) -> Status {
    StatusOr<std::vector<codegen::ttir::TtirKernel>> made =
        codegen::ttir::emitKernels(module, scope, group, emit_options);
    if (!made.isOk()) return made.status().withContext(group.name + ": ");
    for (codegen::ttir::TtirKernel& kernel : *made) {
      dump.write(kernel.name + ".ttir", kernel.ttir);
      if (stages != nullptr) {
        stages->ttir.push_back(kernel.ttir);
        stages->kernel_names.push_back(kernel.name);
      }
      launches.push_back({g, static_cast<int>(kernels.size()), kernel.grid, kernel.inputs,
                          kernel.outputs, kernel.stage, kernel.scratch, after_library});
      kernels.push_back(std::move(kernel));
    }
    return Status::ok();
  };
  // A body's kernels and library calls, group by group; the operand
  // transposes of a library group are TTIR kernels of their scratch functions.
  auto lower = [&](const ir::Function& scope, RegionCode& code) -> Status {
    for (size_t g = 0; g < code.plan.fusions.size(); ++g) {
      const fusion::Fusion& group = code.plan.fusions[g];
      if (group.route == fusion::Route::kLibrary) {
        JFT_ASSIGN_OR_RETURN(LibraryCall call, lowerLibraryGroup(module, scope, code.plan,
                                                                 g, library_context));
        for (const OperandTranspose& t : call.transposes)
          JFT_RETURN_IF_ERROR(emit(g, t.scratch, t.group, code.launches));
        for (const OperandTranspose& t : call.after)
          JFT_RETURN_IF_ERROR(emit(g, t.scratch, t.group, code.launches, true));
        code.calls.push_back(
            {g, call.dot.gemm, call.a, call.b, call.d, call.other, call.bias});
        library_calls.push_back(std::move(call));
        continue;
      }
      if (group.route == fusion::Route::kCollective) {
        JFT_ASSIGN_OR_RETURN(
            CollectiveCall call,
            lowerCollectiveGroup(module, scope, code.plan, g, pass_options.grid));
        collective_texts.push_back(collectiveCallText(call));
        code.collectives.push_back(std::move(call));
        continue;
      }
      if (group.route == fusion::Route::kCustomCall) {
        JFT_ASSIGN_OR_RETURN(FfiCall call, lowerFfiGroup(module, scope, code.plan, g));
        ffi_texts.push_back(ffiCallText(call));
        code.ffi_calls.push_back(std::move(call));
        continue;
      }
      if (group.route != fusion::Route::kTtir) continue;
      JFT_RETURN_IF_ERROR(emit(g, scope, group, code.launches));
    }
    return Status::ok();
  };
  // The function's first, then the regions of its control ops, parents
  // before children (the route report lists them in this order too).
  JFT_RETURN_IF_ERROR(lower(*function, top));
  for (RegionCode* region : nestedRegions(top))
    JFT_RETURN_IF_ERROR(lower(region->scope, *region));

  Executable executable;
  executable.name = module.name;
  runtime::Program& program = executable.program;
  program.name = module.name;
  std::optional<kernel_compiler::CompilerIdentity> identity;
  std::vector<kernel_compiler::CompiledKernel> compiled;
  if (kernel_compiler != nullptr) {
    JFT_ASSIGN_OR_RETURN(KernelBinaries binaries,
                         buildKernelBinaries(kernels, options, *kernel_compiler));
    program.kernels = std::move(binaries.images);
    compiled = std::move(binaries.compiled);
    identity = std::move(binaries.identity);
  }
  JFT_RETURN_IF_ERROR(assembleProgram(module, *function, top, program));
  assignOutputAliases(donationRequests(*function), program);

  for (size_t i = 0; i < function->body.args.size(); ++i)
    executable.parameter_types.push_back(module.typeOf(function->body.args[i]));
  executable.output_types = function->result_types;
  executable.fingerprint =
      fingerprint(input, options, compilerIdentityText(identity ? &*identity : nullptr));

  size_t next_kernel = 0, next_call = 0, next_collective = 0, next_ffi = 0;
  auto report = [&](const ir::Function& scope, const fusion::Fusion& group) {
    RouteEntry entry = routeEntry(module, scope, group);
    entry.autotune = autotuneNoteOf(module, scope, group, tuned);
    if (group.route == fusion::Route::kLibrary && next_call < library_calls.size()) {
      const LibraryCall& call = library_calls[next_call++];
      entry.tile = libraryCallText(call);
      next_kernel += call.transposes.size() + call.after.size();  // the group's kernels
      if (options.log) std::cerr << logLine(entry) << "\n";
    }
    if (group.route == fusion::Route::kCollective &&
        next_collective < collective_texts.size()) {
      entry.tile = collective_texts[next_collective++];
      if (options.log) std::cerr << logLine(entry) << "\n";
    }
    if (group.route == fusion::Route::kCustomCall && next_ffi < ffi_texts.size()) {
      entry.tile = ffi_texts[next_ffi++];
      if (options.log) std::cerr << logLine(entry) << "\n";
    }
    // A group of several kernels: their tiles joined, compile times summed.
    for (bool first = true;
         group.route == fusion::Route::kTtir && next_kernel < kernels.size() &&
         (first || kernels[next_kernel].stage > 0);
         first = false, ++next_kernel) {
      entry.tile += (first ? "" : " + ") + kernels[next_kernel].tile;
      if (next_kernel < compiled.size()) {
        entry.compiled = true;
        entry.compile_seconds += compiled[next_kernel].compile_seconds;
        entry.cache_hit = (first || entry.cache_hit) && compiled[next_kernel].cache_hit;
      }
    }
    if (group.route == fusion::Route::kTtir && options.log)
      std::cerr << logLine(entry) << "\n";
    executable.report.entries.push_back(std::move(entry));
  };
  for (const fusion::Fusion& group : plan.fusions) report(*function, group);
  for (RegionCode* region : nestedRegions(top))
    for (const fusion::Fusion& group : region->plan.fusions) report(region->scope, group);
  if (options.log)
    std::cerr << "jax-flagtree: " << entryName(module) << ": "
              << routeSummary(executable.report) << "\n";
  dump.write("route_report.txt", executable.report.text());
  return executable;
}

}  // namespace

StatusOr<Executable> compile(std::string_view bytecode, const Options& options,
                             kernel_compiler::KernelCompiler* kernel_compiler,
                             Stages* stages) {
  return compileTree(
      bytecode,
      frontend::readBytecode(reinterpret_cast<const uint8_t*>(bytecode.data()),
                             bytecode.size()),
      options, kernel_compiler, stages);
}

StatusOr<Executable> compileTree(std::string_view bytecode,
                                 const StatusOr<frontend::MTree>& tree,
                                 const Options& options,
                                 kernel_compiler::KernelCompiler* kernel_compiler,
                                 Stages* stages) {
  StatusOr<ir::Module> imported =
      tree.isOk() ? frontend::importTree(*tree) : StatusOr<ir::Module>(tree.status());
  // Named by the input alone, so that one artifact's dumps always land in
  // one folder, whether or not it compiles.
  Dumper dump(ModuleDump(options.dump_dir, imported.isOk() ? imported->name : "",
                         fingerprint(bytecode, options, "input")));
  dump.write("input.mlirbc", bytecode);
  if (!imported.isOk()) return imported.status();
  return compileImported(std::move(imported).value(), bytecode, options, kernel_compiler,
                         stages, dump);
}

StatusOr<Executable> compileModule(ir::Module module, const Options& options,
                                   kernel_compiler::KernelCompiler* kernel_compiler,
                                   Stages* stages) {
  const std::string printed = ir::printModule(module);
  Dumper dump(
      ModuleDump(options.dump_dir, module.name, fingerprint(printed, options, "input")));
  return compileImported(std::move(module), printed, options, kernel_compiler, stages,
                         dump);
}

}  // namespace jft::compiler
