#include "fusion/op_text.h"

#include "ir/printer.h"

namespace jft::fusion {
namespace {

std::string typeList(const ir::Module& module, const std::vector<ir::ValueId>& values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out += ", ";
    out += ir::valueTypeText(module, values[i]);
  }
  return out;
}

}  // namespace

std::string opSignature(const ir::Module& module, const ir::Op& op) {
  std::string out = "stablehlo." + std::string(ir::opKindName(op.kind));
  if (op.kind == ir::OpKind::CustomCall)
    if (const auto* target = ir::findAttrAs<std::string>(op.attrs, "call_target_name"))
      out += " @" + *target;
  out += " (" + typeList(module, op.operands) + ") -> ";
  if (op.results.size() == 1) return out + ir::valueTypeText(module, op.results[0]);
  return out + "(" + typeList(module, op.results) + ")";
}

std::string opUserFrame(const ir::Module& module, const ir::Op& op) {
  if (op.loc >= module.locations.size()) return {};
  auto frame = module.locations.userFrame(op.loc);
  if (!frame) return {};
  return frame->file + ":" + std::to_string(frame->line) + ":" +
         std::to_string(frame->col);
}

}  // namespace jft::fusion
