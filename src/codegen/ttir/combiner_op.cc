#include "codegen/ttir/combiner_op.h"

namespace jft::codegen::ttir {

StatusOr<std::vector<Value>> combinerOp(TtirWriter& w, const std::string& op,
                                        const std::vector<Value>& operands, int axis,
                                        const Combine& combine) {
  const size_t n = operands.size();
  std::vector<int64_t> shape = operands[0].shape;
  const bool reduce = op == "tt.reduce";
  if (reduce) shape.erase(shape.begin() + axis);
  const std::string name = w.freshName();
  std::string names, in_types, out_types, arg_list;
  std::vector<Value> lhs, rhs, results;
  for (size_t i = 0; i < n; ++i) {
    names += (i ? ", " : "") + operands[i].name;
    in_types += (i ? ", " : "") + operands[i].type;
    out_types += (i ? ", " : "") + tensorType(shape, operands[i].scalar);
    results.push_back(Value{n == 1 ? name : name + "#" + std::to_string(i),
                            tensorType(shape, operands[i].scalar), shape,
                            operands[i].scalar});
  }
  for (size_t i = 0; i < 2 * n; ++i) {
    const std::string& scalar = operands[i % n].scalar;
    Value arg{w.freshName(), scalar, {}, scalar};
    arg_list += (i ? ", " : "") + arg.name + ": " + scalar;
    (i < n ? lhs : rhs).push_back(arg);
  }
  std::string attrs = "<{axis = " + std::to_string(axis) + " : i32";
  if (!reduce) attrs += ", reverse = false";
  w.open(name + (n > 1 ? ":" + std::to_string(n) : "") + " = \"" + op + "\"(" + names +
         ") " + attrs + "}> ({");
  w.line("^bb0(" + arg_list + "):");
  JFT_ASSIGN_OR_RETURN(std::vector<Value> out, combine(lhs, rhs));
  std::string ret_names, ret_types;
  for (size_t i = 0; i < out.size(); ++i) {
    ret_names += (i ? ", " : "") + out[i].name;
    ret_types += (i ? ", " : "") + out[i].type;
  }
  w.line(op + ".return " + ret_names + " : " + ret_types);
  w.close("}) : (" + in_types + ") -> " + (n > 1 ? "(" + out_types + ")" : out_types));
  return results;
}

}  // namespace jft::codegen::ttir
