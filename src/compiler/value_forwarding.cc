// Resolution of tuple / get_tuple_element / optimization_barrier results.
#include "compiler/value_forwarding.h"

#include <string>

namespace jft::compiler {

bool ValueForwarding::isForwardingOp(ir::OpKind kind) {
  return kind == ir::OpKind::Tuple || kind == ir::OpKind::GetTupleElement ||
         kind == ir::OpKind::OptimizationBarrier;
}

StatusOr<ValueForwarding> ValueForwarding::build(const ir::Module& module,
                                                 const ir::Function& function) {
  ValueForwarding f;
  JFT_RETURN_IF_ERROR(f.add(module, function.body));
  return f;
}

Status ValueForwarding::add(const ir::Module& module, const ir::Region& region) {
  ValueForwarding& f = *this;
  for (const ir::Op& op : region.ops) {
    for (const ir::Region& nested : op.regions) JFT_RETURN_IF_ERROR(add(module, nested));
    switch (op.kind) {
      case ir::OpKind::Tuple: {
        if (op.results.size() != 1) break;
        std::vector<ir::ValueId> elements;
        for (ir::ValueId operand : op.operands) elements.push_back(f.resolve(operand));
        f.tuples_[op.results[0]] = std::move(elements);
        break;
      }
      case ir::OpKind::GetTupleElement: {
        if (op.results.size() != 1 || op.operands.size() != 1) break;
        const int64_t* index = ir::findAttrAs<int64_t>(op.attrs, "index");
        const std::vector<ir::ValueId>* elements = f.tupleElements(op.operands[0]);
        if (index == nullptr || elements == nullptr || *index < 0 ||
            static_cast<size_t>(*index) >= elements->size())
          return unimplemented(
              "stablehlo.get_tuple_element at " + module.locations.describe(op.loc) +
              ": its tuple (" + module.typeOf(op.operands[0]).str() +
              ") is not built by a stablehlo.tuple of this function (tuple-typed "
              "arguments and loop-carried or branch-returned tuples have no buffer form "
              "yet)");
        f.forward_[op.results[0]] = (*elements)[static_cast<size_t>(*index)];
        break;
      }
      case ir::OpKind::OptimizationBarrier:
        for (size_t i = 0; i < op.results.size() && i < op.operands.size(); ++i)
          f.forward_[op.results[i]] = f.resolve(op.operands[i]);
        break;
      default:
        break;
    }
  }
  return Status::ok();
}

ir::ValueId ValueForwarding::resolve(ir::ValueId value) const {
  // Entries always point at already-resolved values, so one step suffices.
  auto it = forward_.find(value);
  return it == forward_.end() ? value : it->second;
}

const std::vector<ir::ValueId>* ValueForwarding::tupleElements(ir::ValueId value) const {
  auto it = tuples_.find(resolve(value));
  return it == tuples_.end() ? nullptr : &it->second;
}

}  // namespace jft::compiler
