#include "codegen/ttir/kernel_signature.h"

#include "codegen/common/kernel_group.h"
#include "codegen/ttir/ttir_writer.h"

namespace jft::codegen::ttir {

namespace {

StatusOr<std::string> parameter(const ir::Module& module, ir::ValueId value,
                                const std::string& name) {
  const ir::Type& type = module.typeOf(value);
  if (!type.isTensor())
    return unimplemented("a kernel parameter of type " + type.str() +
                         " has no TTIR pointer type");
  // Complex elements are (re, im) pairs of their component type.
  const ir::ElementType element =
      ir::isComplex(type.element) ? ir::complexComponent(type.element) : type.element;
  return name + ": !tt.ptr<" + memoryType(element) + "> {tt.divisibility = 16 : i32}";
}

}  // namespace

StatusOr<KernelSignature> kernelSignature(const ir::Module& module,
                                          const fusion::Fusion& fusion,
                                          const std::string& suffix,
                                          const std::vector<ScratchBuffer>& scratch) {
  KernelSignature sig;
  sig.name = common::kernelName(fusion.name) + suffix;
  std::string params;
  auto add = [&](ir::ValueId v, const std::string& name) -> Status {
    JFT_ASSIGN_OR_RETURN(std::string p, parameter(module, v, name));
    params += (params.empty() ? "" : ", ") + p;
    return Status::ok();
  };
  for (size_t i = 0; i < fusion.inputs.size(); ++i) {
    sig.inputs.push_back("%in" + std::to_string(i));
    JFT_RETURN_IF_ERROR(add(fusion.inputs[i], sig.inputs.back()));
  }
  for (size_t i = 0; i < fusion.outputs.size(); ++i) {
    sig.outputs.push_back("%out" + std::to_string(i));
    JFT_RETURN_IF_ERROR(add(fusion.outputs[i], sig.outputs.back()));
  }
  for (size_t i = 0; i < scratch.size(); ++i) {
    sig.scratch.push_back("%tmp" + std::to_string(i));
    params += (params.empty() ? "" : ", ") + sig.scratch.back() + ": !tt.ptr<" +
              scratch[i].memory_type + "> {tt.divisibility = 16 : i32}";
  }
  sig.header =
      "tt.func public @" + sig.name + "(" + params + ") attributes {noinline = false}";
  return sig;
}

std::string kernelModule(const KernelSignature& signature, const std::string& body) {
  return "module {\n  " + signature.header + " {\n" + body + "    tt.return\n  }\n}\n";
}

}  // namespace jft::codegen::ttir
