// A StableHLO reduce region written as the body of a tt.reduce combiner:
// scalars in, scalars out, the same elementwise semantics as on tiles.
#include <map>
#include <span>

#include "codegen/ttir/elementwise.h"

namespace jft::codegen::ttir {

StatusOr<std::vector<Value>> emitScalarRegion(TtirWriter& writer,
                                              const ir::Module& module,
                                              const ir::Region& region,
                                              const std::vector<Value>& args) {
  if (args.size() != region.args.size())
    return internalError("reduce region has " + std::to_string(region.args.size()) +
                         " arguments, " + std::to_string(args.size()) + " values given");
  std::map<ir::ValueId, Value> values;
  for (size_t i = 0; i < args.size(); ++i) values[region.args[i]] = args[i];
  auto lookup = [&](ir::ValueId id) -> StatusOr<Value> {
    auto it = values.find(id);
    if (it == values.end())
      return unimplemented("reduce region reads a value defined outside it");
    return it->second;
  };
  for (const ir::Op& op : region.ops) {
    std::vector<Value> operands;
    for (ir::ValueId id : op.operands) {
      JFT_ASSIGN_OR_RETURN(Value v, lookup(id));
      operands.push_back(v);
    }
    if (op.kind == ir::OpKind::Return) return operands;
    if (op.kind == ir::OpKind::Constant && op.results.size() == 1) {
      const auto* dense = ir::findAttrAs<ir::DenseElements>(op.attrs, "value");
      const ir::Type& type = module.typeOf(op.results[0]);
      if (!dense || !dense->wellFormed() || dense->type != type ||
          type.numElements() != 1 || ir::isComplex(type.element))
        return unimplemented("reduce region constant that is not a real scalar");
      const std::span<const uint8_t> first = dense->element(0);
      const std::string_view bytes(reinterpret_cast<const char*>(first.data()),
                                   first.size());
      // Splatted to the arguments' shape: scalars in a tt.reduce combiner,
      // whole tiles where a window op applies the region lane by lane.
      values[op.results[0]] =
          emitSplatConstant(writer, type.element,
                            args.empty() ? std::vector<int64_t>{} : args[0].shape, bytes);
      continue;
    }
    std::string why;
    if (!isEmittableElementwise(module, op, &why))
      return unimplemented("reduce region: " + why);
    JFT_ASSIGN_OR_RETURN(Value r, emitElementwise(writer, module, op, operands));
    values[op.results[0]] = r;
  }
  return unimplemented("reduce region without a return");
}

}  // namespace jft::codegen::ttir
