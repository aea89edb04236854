// emitNativeKernel (native_kernel.h): parameters, index width, the family's
// body, and the translation unit around it.
#include "codegen/native/native_kernel.h"

#include <algorithm>

#include "codegen/common/kernel_group.h"
#include "codegen/native/c_types.h"
#include "codegen/native/family_kernels.h"
#include "codegen/native/prelude.h"
#include "support/int_lists.h"

namespace jft::codegen::native {
namespace {

// 32-bit index arithmetic when no value the kernel touches reaches 2^31
// elements (every index and linear offset then fits), 64-bit otherwise.
std::string indexType(const ir::Module& module, const ir::Function& function,
                      const fusion::Fusion& fusion) {
  const int64_t largest = std::max(common::largestTensor(module, function, fusion, false),
                                   product(fusion.reduce_shape));
  return largest < (int64_t{1} << 31) ? "jft_i32" : "jft_i64";
}

StatusOr<NativeParam> param(const ir::Module& module, ir::ValueId value, bool is_output,
                            size_t position) {
  const ir::Type& type = module.typeOf(value);
  const std::string role = is_output ? "output" : "input";
  if (!type.isTensor())
    return unimplemented("a kernel " + role + " of type " + type.str() +
                         " has no native pointer type");
  std::string why;
  if (!isNativeType(type.element, &why))
    return unimplemented("kernel " + role + " " + std::to_string(position) + " (" +
                         type.str() + "): " + why);
  NativeParam p;
  p.name = (is_output ? "out" : "in") + std::to_string(position);
  p.value = value;
  p.element = type.element;
  p.dims = type.dims;
  p.is_output = is_output;
  p.c_type = (is_output ? "" : "const ") + storageType(type.element) + "*";
  return p;
}

// extern "C" __global__ void __launch_bounds__(threads) name(params) { ... }
std::string entryText(const std::string& name, const std::string& params,
                      const FamilyKernel& body, int warp_size) {
  return "extern \"C\" __global__ void __launch_bounds__(" +
         std::to_string(body.num_warps * warp_size) + ") " + name + "(" + params +
         ") {\n" + body.shared + body.body + "}\n";
}

}  // namespace

StatusOr<NativeKernel> emitNativeKernel(const ir::Module& module,
                                        const ir::Function& function,
                                        const fusion::Fusion& fusion,
                                        const NativeOptions& options) {
  if (options.warp_size <= 0 || options.max_blocks == 0)
    return invalidArgument(fusion.name + ": bad native emit options");
  NativeKernel kernel;
  kernel.name = common::kernelName(fusion.name);
  kernel.inputs = fusion.inputs;
  kernel.outputs = fusion.outputs;
  kernel.index_type = indexType(module, function, fusion);
  KernelContext context{module, function, fusion, options, {}, {}, kernel.index_type};
  for (size_t i = 0; i < fusion.inputs.size() + fusion.outputs.size(); ++i) {
    const bool is_output = i >= fusion.inputs.size();
    const size_t at = is_output ? i - fusion.inputs.size() : i;
    StatusOr<NativeParam> p =
        param(module, is_output ? fusion.outputs[at] : fusion.inputs[at], is_output, at);
    if (!p.isOk()) return p.status().withContext(fusion.name);
    (is_output ? context.output_params : context.input_params).push_back(p->name);
    kernel.params.push_back(std::move(p).value());
  }
  StatusOr<FamilyKernel> body = unimplemented("");
  switch (fusion.family) {
    case fusion::Family::kLoop:
      kernel.family = "loop";
      body = emitLoopBody(context);
      break;
    case fusion::Family::kReduction:
      kernel.family = "reduction";
      body = emitReductionBody(context);
      break;
    case fusion::Family::kScan:
      kernel.family = "scan";
      body = emitScanBody(context);
      break;
    case fusion::Family::kSort:
      kernel.family = "sort";
      body = emitSortBody(context);
      break;
    case fusion::Family::kScatter:
      kernel.family = "scatter";
      body = emitScatterBody(context);
      break;
    default:
      return unimplemented(fusion.name + ": no native emitter for kernel family " +
                           fusion::familyName(fusion.family));
  }
  if (!body.isOk()) return body.status().withContext(fusion.name);
  const bool empty = common::hasNoElements(module, fusion);
  kernel.grid = {empty ? 0 : body->grid, 1, 1};
  kernel.num_warps = body->num_warps;
  std::string params;
  for (const NativeParam& p : kernel.params)
    params += (params.empty() ? "" : ", ") + p.c_type + " " + p.name;
  kernel.source = std::string(kernelPrelude()) + "\n// " + fusion.name + " (" +
                  kernel.family + ")\n" +
                  entryText(kernel.name, params, *body, options.warp_size);
  for (const FamilyKernel& next : body->later) {
    NativeEntry entry{
        kernel.name + next.suffix, {empty ? 0 : next.grid, 1, 1}, next.num_warps};
    kernel.source += entryText(entry.name, params, next, options.warp_size);
    kernel.later.push_back(std::move(entry));
  }
  return kernel;
}

}  // namespace jft::codegen::native
