// emitKernels (kernel.h): the index type, then the family's emitter writes
// the body of each kernel (most families one, with the plain signature;
// scatter, split reductions and long sorts choose their stages and scratch).
#include <algorithm>

#include "codegen/common/kernel_group.h"
#include "codegen/ttir/attention_emitter.h"
#include "codegen/ttir/conv_emitter.h"
#include "codegen/ttir/kernel.h"
#include "codegen/ttir/kernel_signature.h"
#include "codegen/ttir/loop_emitter.h"
#include "codegen/ttir/matmul_emitter.h"
#include "codegen/ttir/pallas_kernel.h"
#include "codegen/ttir/reduction_emitter.h"
#include "codegen/ttir/scan_emitter.h"
#include "codegen/ttir/scatter_emitter.h"
#include "codegen/ttir/sort_emitter.h"
#include "codegen/ttir/ttir_writer.h"

namespace jft::codegen::ttir {

namespace {

// i32 index arithmetic is enough when no value the kernel touches (nor a
// tile's overhang past it) reaches 2^31 elements.
std::string indexType(const ir::Module& module, const ir::Function& function,
                      const fusion::Fusion& fusion) {
  // A complex element is two components: its offsets reach twice as far.
  const int64_t largest = common::largestTensor(module, function, fusion, true);
  constexpr int64_t kLimit = (int64_t{1} << 31) - (int64_t{1} << 20);
  return largest < kLimit ? "i32" : "i64";
}

// One kernel from a family that writes a single body with a given signature.
template <typename EmitBody>
StatusOr<StagedKernels> oneStage(const GroupInputs& group, EmitBody emit_body) {
  JFT_ASSIGN_OR_RETURN(StageWriter stage, StageWriter::open(group));
  JFT_ASSIGN_OR_RETURN(Launch launch, emit_body(stage.inputs()));
  StagedKernels staged;
  staged.stages.push_back(stage.finish(std::move(launch)));
  return staged;
}

StatusOr<StagedKernels> emitStages(const ir::Module& module, const ir::Function& function,
                                   const fusion::Fusion& fusion,
                                   const EmitOptions& options) {
  const GroupInputs group{module, function, fusion, indexType(module, function, fusion)};
  using F = fusion::Family;
  if (common::hasNoElements(module, fusion)) {
    return oneStage(group, [](const KernelInputs&) {
      Launch launch;
      launch.grid = {0, 1, 1};  // never launched; the module still compiles
      launch.tile.assign(1, '0');
      return StatusOr<Launch>(launch);
    });
  }
  switch (fusion.family) {
    case F::kLoop:
      return oneStage(group, emitLoopKernel);
    case F::kReduction:
      return emitReductionKernels(group);
    case F::kScan:
      return oneStage(group, emitScanKernel);
    case F::kScatter:
      return emitScatterKernels(group, options.deterministic);
    case F::kSort:
      return emitSortKernels(group, options.sort_register_steps);
    case F::kMatmul:
      return oneStage(group, [&](const KernelInputs& in) {
        return emitMatmulKernel(in, options.matmul_tiles);
      });
    case F::kConv:
      return oneStage(group, emitConvKernel);
    case F::kAttention:
      return oneStage(group, emitAttentionKernel);
    default:
      break;
  }
  std::string message = fusion.name;
  message.append(": no TTIR emitter for kernel family ")
      .append(fusion::familyName(fusion.family));
  return unimplemented(message);
}

}  // namespace

StatusOr<std::vector<TtirKernel>> emitKernels(const ir::Module& module,
                                              const ir::Function& function,
                                              const fusion::Fusion& fusion,
                                              const EmitOptions& options) {
  if (fusion.route != fusion::Route::kTtir) {
    std::string message = fusion.name;
    message.append(": route ")
        .append(fusion::routeName(fusion.route))
        .append(" is not ttir");
    return invalidArgument(message);
  }
  // Its module is given, not written.
  if (fusion.family == fusion::Family::kPallas)
    return emitPallasKernels(module, function, fusion);
  // Every family but sort stores complex values (both parts of each).
  if (fusion.family == fusion::Family::kSort)
    for (ir::ValueId v : fusion.outputs)
      if (module.typeOf(v).isTensor() && ir::isComplex(module.typeOf(v).element))
        return unimplemented(fusion.name + ": a " + fusion::familyName(fusion.family) +
                             " kernel cannot store the complex output " +
                             module.typeOf(v).str());
  JFT_ASSIGN_OR_RETURN(StagedKernels staged,
                       emitStages(module, function, fusion, options));
  if (staged.stages.empty())
    return internalError(fusion.name + ": the emitter made no kernel");
  std::vector<uint64_t> scratch;
  for (const ScratchBuffer& b : staged.scratch) scratch.push_back(b.bytes);
  std::vector<TtirKernel> kernels;
  for (StageKernel& stage : staged.stages) {
    TtirKernel kernel;
    kernel.name = stage.signature.name;
    kernel.ttir = kernelModule(stage.signature, stage.body);
    kernel.inputs = fusion.inputs;
    kernel.outputs = fusion.outputs;
    kernel.grid = stage.launch.grid;
    kernel.num_warps = stage.launch.num_warps;
    kernel.num_stages = stage.launch.num_stages;
    kernel.tile = stage.launch.tile;
    kernel.stage = static_cast<int>(kernels.size());
    kernel.scratch = scratch;
    kernels.push_back(std::move(kernel));
  }
  return kernels;
}

StatusOr<TtirKernel> emitKernel(const ir::Module& module, const ir::Function& function,
                                const fusion::Fusion& fusion,
                                const EmitOptions& options) {
  JFT_ASSIGN_OR_RETURN(std::vector<TtirKernel> kernels,
                       emitKernels(module, function, fusion, options));
  if (kernels.size() != 1)
    return internalError(fusion.name + ": the group runs as " +
                         std::to_string(kernels.size()) + " kernels, not one");
  return std::move(kernels.front());
}

}  // namespace jft::codegen::ttir
