// emitKernel (kernel.h): the signature, the index type, then the family's
// emitter writes the body.
#include <algorithm>

#include "codegen/ttir/kernel.h"
#include "codegen/ttir/kernel_signature.h"
#include "codegen/ttir/loop_emitter.h"
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
  int64_t largest = 0;
  auto see = [&](ir::ValueId v) {
    const ir::Type& t = module.typeOf(v);
    // A complex element is two components: its offsets reach twice as far.
    if (t.isTensor())
      largest = std::max(largest, t.numElements() * (ir::isComplex(t.element) ? 2 : 1));
  };
  for (ir::ValueId v : fusion.inputs) see(v);
  for (ir::ValueId v : fusion.outputs) see(v);
  for (size_t at : fusion.ops) {
    const ir::Op& op = function.body.ops.at(at);
    for (ir::ValueId v : op.operands) see(v);
    for (ir::ValueId v : op.results) see(v);
  }
  constexpr int64_t kLimit = (int64_t{1} << 31) - (int64_t{1} << 20);
  return largest < kLimit ? "i32" : "i64";
}

bool hasNoElements(const ir::Module& module, const fusion::Fusion& fusion) {
  for (ir::ValueId v : fusion.outputs)
    if (module.typeOf(v).isTensor() && module.typeOf(v).numElements() != 0) return false;
  return !fusion.outputs.empty();
}

}  // namespace

StatusOr<TtirKernel> emitKernel(const ir::Module& module, const ir::Function& function,
                                const fusion::Fusion& fusion,
                                const EmitOptions& options) {
  (void)options;
  if (fusion.route != fusion::Route::kTtir) {
    std::string message = fusion.name;
    message.append(": route ")
        .append(fusion::routeName(fusion.route))
        .append(" is not ttir");
    return invalidArgument(message);
  }
  // Only the loop family stores complex values (both parts of each).
  if (fusion.family != fusion::Family::kLoop)
    for (ir::ValueId v : fusion.outputs)
      if (module.typeOf(v).isTensor() && ir::isComplex(module.typeOf(v).element))
        return unimplemented(fusion.name + ": a " + fusion::familyName(fusion.family) +
                             " kernel cannot store the complex output " +
                             module.typeOf(v).str());
  JFT_ASSIGN_OR_RETURN(KernelSignature signature, kernelSignature(module, fusion));
  TtirWriter writer;
  Launch launch;
  if (hasNoElements(module, fusion)) {
    launch.grid = {0, 1, 1};  // never launched; the module still compiles
    launch.tile.assign(1, '0');
  } else if (fusion.family == fusion::Family::kLoop) {
    JFT_ASSIGN_OR_RETURN(launch,
                         emitLoopKernel(writer, module, function, fusion, signature,
                                        indexType(module, function, fusion)));
  } else if (fusion.family == fusion::Family::kReduction) {
    JFT_ASSIGN_OR_RETURN(launch,
                         emitReductionKernel(writer, module, function, fusion, signature,
                                             indexType(module, function, fusion)));
  } else if (fusion.family == fusion::Family::kScan) {
    JFT_ASSIGN_OR_RETURN(launch,
                         emitScanKernel(writer, module, function, fusion, signature,
                                        indexType(module, function, fusion)));
  } else if (fusion.family == fusion::Family::kScatter) {
    JFT_ASSIGN_OR_RETURN(launch,
                         emitScatterKernel(writer, module, function, fusion, signature,
                                           indexType(module, function, fusion)));
  } else if (fusion.family == fusion::Family::kSort) {
    JFT_ASSIGN_OR_RETURN(launch,
                         emitSortKernel(writer, module, function, fusion, signature,
                                        indexType(module, function, fusion)));
  } else {
    std::string message = fusion.name;
    message.append(": no TTIR emitter for kernel family ")
        .append(fusion::familyName(fusion.family));
    return unimplemented(message);
  }
  TtirKernel kernel;
  kernel.name = signature.name;
  kernel.ttir = kernelModule(signature, writer.body());
  kernel.inputs = fusion.inputs;
  kernel.outputs = fusion.outputs;
  kernel.grid = launch.grid;
  kernel.num_warps = launch.num_warps;
  kernel.tile = launch.tile;
  return kernel;
}

}  // namespace jft::codegen::ttir
