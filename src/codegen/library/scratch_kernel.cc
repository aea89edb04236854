// Scratch functions as one-group TTIR kernels (see scratch_kernel.h).
#include "codegen/library/scratch_kernel.h"

#include <utility>

#include "ir/builder.h"

namespace jft::codegen::library {

using ir::OpKind;
using ir::Type;
using ir::ValueId;

ScratchKernel::ScratchKernel(ir::Module& module, const fusion::Fusion& owner,
                             const ir::Op& op, const std::string& suffix,
                             std::vector<ValueId> inputs)
    : module_(module), owner_(owner), loc_(op.loc) {
  t_.scratch.name = owner.name + "_" + suffix;
  t_.scratch.body.args = inputs;
  t_.group.inputs = std::move(inputs);
}

ValueId ScratchKernel::add(OpKind kind, std::vector<ValueId> operands, const Type& type,
                           ir::NamedAttrs attrs, ValueId result, bool fresh) {
  if (fresh) result = module_.newValue(type);
  ir::Op op;
  op.kind = kind;
  op.operands = std::move(operands);
  op.results = {result};
  op.attrs = std::move(attrs);
  op.loc = loc_;
  t_.scratch.body.ops.push_back(std::move(op));
  return result;
}

ValueId ScratchKernel::splat(ir::ElementType element, int64_t value,
                             const std::vector<int64_t>& dims) {
  const Type scalar = Type::scalar(element);
  ir::DenseElements literal =
      ir::isFloat(element) && value == 0
          ? ir::denseFromBits(scalar, {0})
          : ir::denseFromValues(scalar, {static_cast<double>(value)});
  const ValueId c = add(OpKind::Constant, {}, scalar, {{"value", std::move(literal)}});
  if (dims.empty()) return c;
  return add(OpKind::BroadcastInDim, {c}, Type::tensor(element, dims),
             {{"broadcast_dimensions", std::vector<int64_t>{}}});
}

ValueId ScratchKernel::transpose(ValueId x, const std::vector<int64_t>& perm,
                                 ValueId result) {
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity &= perm[i] == static_cast<int64_t>(i);
  if (identity && result == 0) return x;
  const Type from = module_.typeOf(x);
  std::vector<int64_t> dims;
  for (int64_t p : perm) dims.push_back(from.dims[static_cast<size_t>(p)]);
  return add(OpKind::Transpose, {x}, Type::tensor(from.element, std::move(dims)),
             {{"permutation", perm}}, result, result == 0);
}

void ScratchKernel::finish(ValueId result, std::vector<OperandTranspose>& kernels) {
  ir::Op ret;
  ret.kind = OpKind::Return;
  ret.operands = {result};
  ret.loc = loc_;
  t_.scratch.result_types = {module_.typeOf(result)};
  t_.group.id = owner_.id;
  t_.group.name = t_.scratch.name;
  t_.group.route = fusion::Route::kTtir;
  t_.group.family = fusion::Family::kLoop;
  for (size_t i = 0; i < t_.scratch.body.ops.size(); ++i) t_.group.ops.push_back(i);
  t_.group.outputs = {result};
  t_.scratch.body.ops.push_back(std::move(ret));
  kernels.push_back(std::move(t_));
}

}  // namespace jft::codegen::library
