// Backends of one compile, and the lowering stage over them.
#include "compiler/backends.h"

#include "compiler/control_regions.h"
#include "compiler/horizontal_batches.h"

namespace jft::compiler {
namespace {

codegen::ttir::EmitOptions emitOptions(const Options& options,
                                       const AutotuneResult& tuned) {
  codegen::ttir::EmitOptions emit;
  emit.warp_size = options.target.warp_size;
  emit.deterministic = options.exclude_nondeterministic_ops;
  emit.sort_register_steps = options.sort_registers;
  emit.matmul_tiles = options.matmul_tiles;
  emit.matmul_tiles.insert(tuned.tiles.begin(), tuned.tiles.end());
  return emit;
}

codegen::native::NativeOptions nativeOptions(const Options& options) {
  codegen::native::NativeOptions native;
  native.warp_size = options.target.warp_size;
  return native;
}

Status lowerRegion(
    ir::Module& module, const ir::Function& scope, RegionCode& code,
    const Backends& backends, const HorizontalLimits* horizontal,
    std::vector<codegen::ttir::TtirKernel>& kernels,
    const std::function<void(const codegen::ttir::TtirKernel&)>& on_kernel) {
  code.groups.assign(code.plan.fusions.size(), {});
  for (size_t g = 0; g < code.plan.fusions.size(); ++g) {
    const codegen::Backend* backend = backends.of(code.plan.fusions[g].route);
    if (backend == nullptr) continue;
    JFT_ASSIGN_OR_RETURN(code.groups[g], backend->lower(module, scope, code.plan, g));
  }
  if (horizontal != nullptr)
    JFT_RETURN_IF_ERROR(combineHorizontally(scope, code, *horizontal));
  for (codegen::GroupCode& made : code.groups) {
    made.first_kernel = static_cast<int>(kernels.size());
    for (const codegen::ttir::TtirKernel& kernel : made.kernels) {
      on_kernel(kernel);
      kernels.push_back(kernel);
    }
  }
  return Status::ok();
}

}  // namespace

Backends::Backends(const Options& options, passes::ParticipantGrid grid,
                   const AutotuneResult& tuned)
    : mode_(options.mode),
      ttir_(emitOptions(options, tuned)),
      native_(nativeOptions(options)),
      library_(options.mode == Mode::kNative || options.native_library_operands
                   ? static_cast<const codegen::Backend&>(native_)
                   : ttir_,
               {options.conv_library, options.conv, options.log}),
      collective_(grid),
      ffi_(options.mode == Mode::kNative || options.native_library_operands
               ? static_cast<const codegen::Backend&>(native_)
               : ttir_) {}

const codegen::Backend* Backends::of(fusion::Route route) const {
  switch (route) {
    case fusion::Route::kTtir:
      return &ttir_;
    case fusion::Route::kLibrary:
      return &library_;
    case fusion::Route::kCollective:
      return &collective_;
    case fusion::Route::kCustomCall:
      return &ffi_;
    case fusion::Route::kNative:
      return &native_;
    default:
      return nullptr;
  }
}

NativeReasons Backends::routeNative(const ir::Module& module, const ir::Function& scope,
                                    fusion::Plan& plan) const {
  return compiler::routeNative(module, scope, plan, mode_, native_);
}

std::vector<fusion::UnsupportedOp> Backends::rejects(const ir::Module& module,
                                                     const ir::Function& scope,
                                                     const fusion::Plan& plan) const {
  std::vector<fusion::UnsupportedOp> all;
  for (const codegen::Backend* backend :
       {static_cast<const codegen::Backend*>(&ttir_),
        static_cast<const codegen::Backend*>(&native_),
        static_cast<const codegen::Backend*>(&library_),
        static_cast<const codegen::Backend*>(&collective_),
        static_cast<const codegen::Backend*>(&ffi_)}) {
    std::vector<fusion::UnsupportedOp> more = backend->rejects(module, scope, plan);
    all.insert(all.end(), more.begin(), more.end());
  }
  return all;
}

StatusOr<std::vector<codegen::ttir::TtirKernel>> lowerProgram(
    ir::Module& module, const ir::Function& function, RegionCode& top,
    const Backends& backends, const HorizontalLimits* horizontal,
    const std::function<void(const codegen::ttir::TtirKernel&)>& on_kernel) {
  std::vector<codegen::ttir::TtirKernel> kernels;
  JFT_RETURN_IF_ERROR(
      lowerRegion(module, function, top, backends, horizontal, kernels, on_kernel));
  for (RegionCode* region : nestedRegions(top))
    JFT_RETURN_IF_ERROR(lowerRegion(module, region->scope, *region, backends, horizontal,
                                    kernels, on_kernel));
  return kernels;
}

}  // namespace jft::compiler
