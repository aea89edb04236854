#include "codegen/ttir/tile_ops.h"

#include <string>
#include <vector>

namespace jft::codegen::ttir {

Value makeRange(TtirWriter& w, int64_t n) {
  const std::vector<int64_t> flat{n};
  return w.op("tt.make_range {end = " + std::to_string(n) +
                  " : i32, start = 0 : i32} : " + tensorType(flat, "i32"),
              flat, "i32");
}

Value expandDims(TtirWriter& w, const Value& v, int axis) {
  std::vector<int64_t> shape = v.shape;
  shape.insert(shape.begin() + axis, 1);
  return w.op("tt.expand_dims " + v.name + " {axis = " + std::to_string(axis) +
                  " : i32} : " + v.type + " -> " + tensorType(shape, v.scalar),
              shape, v.scalar);
}

}  // namespace jft::codegen::ttir
