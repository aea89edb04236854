// compile(): the pipeline, stage by stage (see compiler.h).
#include <chrono>
#include <iostream>
#include <optional>

#include "codegen/ttir/capability.h"
#include "codegen/ttir/kernel.h"
#include "compiler/backends.h"
#include "compiler/compile_tree.h"
#include "compiler/compiler.h"
#include "compiler/cost_analysis.h"
#include "compiler/entry_layouts.h"
#include "compiler/entry_value.h"
#include "compiler/fingerprint.h"
#include "compiler/input_output_alias.h"
#include "compiler/matmul_autotune.h"
#include "compiler/module_dump.h"
#include "compiler/plan_stage.h"
#include "compiler/program_assembly.h"
#include "compiler/program_binaries.h"
#include "compiler/route_report.h"
#include "frontend/bytecode/reader.h"
#include "frontend/vhlo/import.h"
#include "fusion/fusion.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "passes/pipeline.h"

namespace jft::compiler {
namespace {

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

std::string entryName(const ir::Module& module) {
  return module.name.empty() ? std::string("module") : module.name;
}

// The IR passes; composites an emitter implements whole (chlo.scan) stay
// composites, the rest are inlined into their decompositions.
Status runPassStage(ir::Module& module, const passes::ParticipantGrid& grid,
                    Stages* stages, Dumper& dump) {
  passes::PipelineOptions pass_options;
  pass_options.grid = grid;
  pass_options.inlining.keep_composite = [&module](const ir::Op& composite) {
    return codegen::ttir::ttirKeepsComposite(module, composite);
  };
  JFT_ASSIGN_OR_RETURN(passes::PipelineReport pass_report,
                       passes::runPasses(module, pass_options));
  std::string ir_text = ir::printModule(module);
  dump.write("passes.txt", passes::describeReport(pass_report));
  dump.write("ir_after_passes.txt", ir_text);
  if (Status valid = ir::verifyModule(module); !valid.isOk())
    return internalError("the IR passes broke the program: " + valid.message());
  if (stages != nullptr) stages->ir_after_passes = std::move(ir_text);
  return Status::ok();
}

StatusOr<const ir::Function*> entryOf(const ir::Module& module) {
  const ir::Function* function = module.entry();
  if (function == nullptr)
    return invalidArgument(entryName(module) +
                           ": no entry function (no @main and not exactly one public "
                           "function)");
  return function;
}

// Measured choices for dots (--xla_gpu_autotune_level >= 1 with a
// measurer); without them the cost model and the tile heuristic decide.
AutotuneResult autotuneStage(const ir::Module& module, const ir::Function& function,
                             const Options& options,
                             kernel_compiler::KernelCompiler* kernel_compiler,
                             Dumper& dump) {
  AutotuneResult tuned;
  // Native mode has no TTIR candidates to measure against the library.
  if (options.autotune_level > 0 && options.measurer != nullptr &&
      options.mode != Mode::kNative)
    tuned =
        autotuneMatmuls(module, function, options, kernel_compiler, *options.measurer);
  if (!tuned.transcript.empty()) dump.write("autotune.txt", tuned.transcript);
  return tuned;
}

// A kernel as it is made: dumped (TTIR, or the native route's CUDA C), and
// kept for the caller's stages.
void keepKernel(const codegen::ttir::TtirKernel& kernel, Stages* stages, Dumper& dump) {
  if (kernel.isNative()) {
    dump.write(kernel.name + ".cu", kernel.cuda);
    if (stages == nullptr) return;
    stages->cuda.push_back(kernel.cuda);
    stages->cuda_names.push_back(kernel.name);
    return;
  }
  dump.write(kernel.name + ".ttir", kernel.ttir);
  if (stages == nullptr) return;
  stages->ttir.push_back(kernel.ttir);
  stages->kernel_names.push_back(kernel.name);
}

// Who built the binaries, for the fingerprint: the kernel compiler, and the
// native compiler when it built some.
std::string buildersText(const KernelBinaries* binaries) {
  if (binaries == nullptr) return compilerIdentityText(nullptr);
  std::string text =
      compilerIdentityText(binaries->identity ? &*binaries->identity : nullptr);
  if (!binaries->native_identity.empty()) text += " native " + binaries->native_identity;
  return text;
}

// The kernels' binaries (none offline; back_fail may move groups to the
// native route on the way), the program's slots and thunks, donation and the
// entry's types and fingerprint.
StatusOr<Executable> buildExecutable(
    ir::Module& module, const ir::Function& function, RegionCode& top,
    std::vector<codegen::ttir::TtirKernel>& kernels, std::string_view input,
    const Options& options, const Backends& backends,
    kernel_compiler::KernelCompiler* kernel_compiler,
    const std::function<void(const codegen::ttir::TtirKernel&)>& on_kernel,
    std::vector<kernel_compiler::CompiledKernel>& compiled) {
  Executable executable;
  executable.name = module.name;
  runtime::Program& program = executable.program;
  program.name = module.name;
  std::optional<KernelBinaries> binaries;
  if (kernel_compiler != nullptr) {
    JFT_ASSIGN_OR_RETURN(
        binaries, buildProgramBinaries(module, function, top, kernels, options, backends,
                                       *kernel_compiler, on_kernel));
    program.kernels = std::move(binaries->images);
    compiled = std::move(binaries->compiled);
  }
  JFT_RETURN_IF_ERROR(assembleProgram(module, function, top, program));
  assignOutputAliases(donationRequests(function), program);
  for (size_t i = 0; i < function.body.args.size(); ++i)
    executable.parameter_types.push_back(module.typeOf(function.body.args[i]));
  executable.output_types = function.result_types;
  executable.parameter_memory_kinds =
      entryMemoryKinds(function.arg_attrs, function.body.args.size());
  executable.output_memory_kinds =
      entryMemoryKinds(function.result_attrs, function.result_types.size());
  executable.cost = programCost(module, function);
  executable.fingerprint =
      fingerprint(input, options, buildersText(binaries ? &*binaries : nullptr));
  return executable;
}

// The pipeline from the imported module on; `input` is what the
// executable's fingerprint covers (the bytecode, or the printed module).
StatusOr<Executable> compileOnce(ir::Module module, std::string_view input,
                                 const Options& options,
                                 kernel_compiler::KernelCompiler* kernel_compiler,
                                 Stages* stages, Dumper& dump) {
  dump.write("ir_imported.txt", ir::printModule(module));
  JFT_RETURN_IF_ERROR(ir::verifyModule(module));
  EntryLayouts layouts;
  if (const ir::Function* entry = module.entry(); entry != nullptr) {
    JFT_ASSIGN_OR_RETURN(layouts,
                         applyEntryLayouts(module, *module.findFunction(entry->name)));
  }
  const passes::ParticipantGrid grid{options.num_replicas, options.num_partitions};
  JFT_RETURN_IF_ERROR(runPassStage(module, grid, stages, dump));
  JFT_ASSIGN_OR_RETURN(const ir::Function* function, entryOf(module));
  const AutotuneResult tuned =
      autotuneStage(module, *function, options, kernel_compiler, dump);
  const Backends backends(options, grid, tuned);

  const fusion::PlanOptions plan_options = planOptions(module, options, tuned);
  RegionCode top;
  top.plan = fusion::planFusions(module, *function, plan_options);
  std::string plan_text = fusion::describePlan(module, *function, top.plan);
  dump.write("plan.txt", plan_text);
  if (stages != nullptr) stages->plan = std::move(plan_text);
  JFT_RETURN_IF_ERROR(
      planRegionsAndCheck(module, *function, top, plan_options, options, backends));

  auto on_kernel = [&](const codegen::ttir::TtirKernel& k) {
    keepKernel(k, stages, dump);
  };
  const HorizontalLimits horizontal;
  const bool combine = options.horizontal && options.mode != Mode::kBackFail;
  JFT_ASSIGN_OR_RETURN(std::vector<codegen::ttir::TtirKernel> kernels,
                       lowerProgram(module, *function, top, backends,
                                    combine ? &horizontal : nullptr, on_kernel));
  std::vector<kernel_compiler::CompiledKernel> compiled;
  JFT_ASSIGN_OR_RETURN(Executable executable,
                       buildExecutable(module, *function, top, kernels, input, options,
                                       backends, kernel_compiler, on_kernel, compiled));
  if (!layouts.parameter_types.empty() || !layouts.output_types.empty()) {
    // The caller passes and receives the logical shapes; the layouts say
    // how their bytes are ordered.
    executable.parameter_types = std::move(layouts.parameter_types);
    executable.output_types = std::move(layouts.output_types);
    executable.parameter_layouts = std::move(layouts.parameters);
    executable.output_layouts = std::move(layouts.outputs);
  }
  executable.report =
      programReport(module, *function, top, compiled, tuned.notes, options.log);
  if (options.log)
    std::cerr << "jax-flagtree: " << entryName(module) << ": "
              << routeSummary(executable.report) << "\n";
  dump.write("route_report.txt", executable.report.text());
  return executable;
}

// back_fail's second plan: the families whose TTIR kernels have no native
// emitter to fall back to (the matmul and conv families, attention, the
// library's operand kernels, which moveFailedGroups does not reach) left for
// their library routes, separate kernels and the native route. Nothing when
// `options` already plans that way.
std::optional<Options> libraryFallback(const Options& options) {
  if (options.matmul == fusion::MatmulRoute::kLibrary &&
      options.conv == fusion::ConvRoute::kLibrary && !options.attention &&
      options.matmul_routes.empty() && options.native_library_operands)
    return std::nullopt;
  Options fallback = options;
  fallback.matmul = fusion::MatmulRoute::kLibrary;
  fallback.conv = fusion::ConvRoute::kLibrary;
  fallback.attention = false;
  fallback.matmul_routes.clear();
  fallback.native_library_operands = true;
  return fallback;
}

// Under back_fail a program some of whose TTIR kernels fail to compile and
// cannot move to the native route (program_binaries.h) is planned once more
// with libraryFallback's options; the first error stands when that fails too.
StatusOr<Executable> compileImported(ir::Module module, std::string_view input,
                                     const Options& options,
                                     kernel_compiler::KernelCompiler* kernel_compiler,
                                     Stages* stages, Dumper& dump) {
  if (options.mode != Mode::kBackFail)
    return compileOnce(std::move(module), input, options, kernel_compiler, stages, dump);
  ir::Module copy = module;
  StatusOr<Executable> first =
      compileOnce(std::move(module), input, options, kernel_compiler, stages, dump);
  const std::optional<Options> fallback = libraryFallback(options);
  if (first.isOk() || !fallback ||
      first.status().message().rfind(kKernelCompilationFailed, 0) != 0)
    return first;
  if (options.log)
    std::cerr << "jax-flagtree: " << entryName(copy)
              << ": XLA_MODE=back_fail: kernels without a native fallback failed to "
                 "compile; planning again with products and convolutions on the "
                 "library and attention unfused\n";
  if (stages != nullptr) *stages = Stages();
  StatusOr<Executable> second =
      compileOnce(std::move(copy), input, *fallback, kernel_compiler, stages, dump);
  return second.isOk() ? second : first;
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
