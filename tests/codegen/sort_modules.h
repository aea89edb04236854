// The sort module the sort-family tests build (jnp.sort's and lax.top_k's
// comparator), shared by emit_sort_test.cc and the interpreter's tests.
#pragma once

#include <vector>

#include "emit_test_util.h"

namespace jft::codegen::ttir::testing {

inline ValueId sortCompare(ir::Builder& b, ValueId x, ValueId y,
                           ir::ComparisonDirection dir, ir::ComparisonType type) {
  return b.op1(OpKind::Compare, {x, y}, pred(),
               {{"comparison_direction", dir}, {"compare_type", type}});
}

// sort(x) along `dim` by TOTALORDER `dir`, the first operand's comparator
// reading a constant captured from the function body (as the pass pipeline
// leaves jnp.sort's).
inline ir::Module sortModule(std::vector<int64_t> dims, int64_t dim, bool with_indices,
                             ir::ComparisonDirection dir) {
  ir::Module m;
  ir::Builder b(m);
  std::vector<Type> results{f32(dims)};
  if (with_indices) results.push_back(i32(dims));
  auto a = b.beginFunction("main", {f32(dims)}, results);
  ValueId zero = scalarConstant(b, f32(), 0);
  std::vector<ValueId> operands{a[0]};
  std::vector<Type> arg_types{f32(), f32()};
  if (with_indices) {
    operands.push_back(b.op1(OpKind::Iota, {}, i32(dims), {{"iota_dimension", dim}}));
    arg_types.push_back(i32());
    arg_types.push_back(i32());
  }
  auto args = b.beginRegion(arg_types);
  // -0.0 == 0.0 -> 0.0 (the captured constant), then the total order.
  ValueId lz = sortCompare(b, args[0], zero, ir::ComparisonDirection::EQ,
                           ir::ComparisonType::FLOAT);
  ValueId l = b.op1(OpKind::Select, {lz, zero, args[0]}, f32());
  ValueId rz = sortCompare(b, args[1], zero, ir::ComparisonDirection::EQ,
                           ir::ComparisonType::FLOAT);
  ValueId r = b.op1(OpKind::Select, {rz, zero, args[1]}, f32());
  b.ret({sortCompare(b, l, r, dir, ir::ComparisonType::TOTALORDER)});
  ir::Region body = b.endRegion();
  auto sorted = b.op(OpKind::Sort, operands, results,
                     {{"dimension", dim}, {"is_stable", true}}, {std::move(body)});
  b.ret(sorted);
  b.endFunction();
  return m;
}

}  // namespace jft::codegen::ttir::testing
