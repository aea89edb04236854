// Scatter programs for the emitter tests: main(operand, idx, upd) =
// scatter(...) with combine(current, update) as its region (nullopt:
// replace, the region returns the update).
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "emit_test_util.h"

namespace jft::codegen::ttir::testing {

inline ir::Module scatterOf(ElementType element, std::vector<int64_t> operand,
                            std::vector<int64_t> idx, std::vector<int64_t> upd,
                            const ir::ScatterDimensionNumbers& dn,
                            std::optional<OpKind> combine) {
  ir::Module m;
  ir::Builder b(m);
  const Type table = Type::tensor(element, operand);
  auto a =
      b.beginFunction("main", {table, i32(idx), Type::tensor(element, upd)}, {table});
  const Type scalar = Type::scalar(element);
  auto args = b.beginRegion({scalar, scalar});
  b.ret({combine ? b.op1(*combine, {args[0], args[1]}, scalar) : args[1]});
  ir::Region body = b.endRegion();
  b.ret({b.op1(OpKind::Scatter, {a[0], a[1], a[2]}, table,
               {{"scatter_dimension_numbers", dn}}, {std::move(body)})});
  b.endFunction();
  return m;
}

// x.at[idx].op(upd) over whole rows: operand [rows, cols], idx [n, 1],
// upd [n, cols], along dim 0.
inline ir::Module rowScatter(ElementType element, int64_t rows, int64_t cols, int64_t n,
                             std::optional<OpKind> combine) {
  ir::ScatterDimensionNumbers dn;
  dn.update_window_dims = {1};
  dn.inserted_window_dims = {0};
  dn.scatter_dims_to_operand_dims = {0};
  dn.index_vector_dim = 1;
  return scatterOf(element, {rows, cols}, {n, 1}, {n, cols}, dn, combine);
}

}  // namespace jft::codegen::ttir::testing
