#include "codegen/common/kernel_group.h"

#include <algorithm>
#include <cctype>

namespace jft::codegen::common {

std::string kernelName(const std::string& fusion_name) {
  std::string name;
  for (char c : fusion_name)
    name += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])))
    name = "k_" + name;
  return name;
}

int64_t largestTensor(const ir::Module& module, const ir::Function& function,
                      const fusion::Fusion& fusion, bool components) {
  int64_t largest = 0;
  auto see = [&](ir::ValueId v) {
    const ir::Type& t = module.typeOf(v);
    if (t.isTensor())
      largest = std::max(
          largest, t.numElements() * (components && ir::isComplex(t.element) ? 2 : 1));
  };
  for (ir::ValueId v : fusion.inputs) see(v);
  for (ir::ValueId v : fusion.outputs) see(v);
  for (size_t at : fusion.ops) {
    const ir::Op& op = function.body.ops.at(at);
    for (ir::ValueId v : op.operands) see(v);
    for (ir::ValueId v : op.results) see(v);
  }
  return largest;
}

bool hasNoElements(const ir::Module& module, const fusion::Fusion& fusion) {
  for (ir::ValueId v : fusion.outputs)
    if (module.typeOf(v).isTensor() && module.typeOf(v).numElements() != 0) return false;
  return !fusion.outputs.empty();
}

}  // namespace jft::codegen::common
