#include "codegen/ttir/reduction_layout.h"

#include <unordered_map>

#include "codegen/ttir/elemental.h"
#include "fusion/ttir_support.h"

namespace jft::codegen::ttir {
namespace {

// Shorter minor extents fill a memory transaction from several rows anyway.
constexpr int64_t kMinContiguousExtent = 16;
constexpr int kMaxChain = 64;

class AxisTracer {
 public:
  AxisTracer(const ir::Module& module, const ir::Function& function,
             const fusion::Fusion& fusion)
      : module_(module) {
    for (size_t at : fusion.ops) {
      const ir::Op& op = function.body.ops.at(at);
      for (ir::ValueId result : op.results) producers_[result] = &op;
    }
  }

  // Each value is traced once: operands shared along several elementwise
  // paths would otherwise be revisited once per path, exponentially many.
  std::optional<int64_t> axisOf(ir::ValueId value, int depth) const {
    if (auto it = traced_.find(value); it != traced_.end()) return it->second;
    const std::optional<int64_t> axis = trace(value, depth);
    traced_.emplace(value, axis);
    return axis;
  }

 private:
  std::optional<int64_t> trace(ir::ValueId value, int depth) const {
    const ir::Type& type = module_.typeOf(value);
    if (!type.isTensor() || type.dims.empty() || depth > kMaxChain) return std::nullopt;
    const ir::Op* op = producer(value);
    if (op == nullptr) {
      if (type.dims.back() < kMinContiguousExtent) return std::nullopt;
      return static_cast<int64_t>(type.dims.size()) - 1;
    }
    if (op->kind == ir::OpKind::Transpose) {
      const std::optional<int64_t> axis = axisOf(op->operands.at(0), depth + 1);
      if (!axis) return std::nullopt;
      const std::vector<int64_t> perm = intsAttr(*op, "permutation");
      for (size_t i = 0; i < perm.size(); ++i)
        if (perm[i] == *axis) return static_cast<int64_t>(i);
      return std::nullopt;
    }
    if (op->kind == ir::OpKind::Reshape) {
      // Row-major: an input's minor axis stays the minor axis of the result.
      const ir::ValueId from = op->operands.at(0);
      const std::optional<int64_t> axis = axisOf(from, depth + 1);
      const int64_t from_rank = static_cast<int64_t>(module_.typeOf(from).dims.size());
      if (!axis || *axis != from_rank - 1 || type.dims.back() < kMinContiguousExtent)
        return std::nullopt;
      return static_cast<int64_t>(type.dims.size()) - 1;
    }
    if (op->kind == ir::OpKind::Convert || fusion::isTtirElementwise(op->kind)) {
      for (ir::ValueId operand : op->operands) {
        if (module_.typeOf(operand).dims != type.dims) continue;
        if (std::optional<int64_t> axis = axisOf(operand, depth + 1)) return axis;
      }
    }
    return std::nullopt;
  }

  // The group's op defining `value`; none for the group's inputs.
  const ir::Op* producer(ir::ValueId value) const {
    auto it = producers_.find(value);
    return it == producers_.end() ? nullptr : it->second;
  }

  const ir::Module& module_;
  std::unordered_map<ir::ValueId, const ir::Op*> producers_;
  mutable std::unordered_map<ir::ValueId, std::optional<int64_t>> traced_;
};

}  // namespace

std::optional<int64_t> contiguousAxis(const ir::Module& module,
                                      const ir::Function& function,
                                      const fusion::Fusion& fusion, ir::ValueId value) {
  return AxisTracer(module, function, fusion).axisOf(value, 0);
}

}  // namespace jft::codegen::ttir
