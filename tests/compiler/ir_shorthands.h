// Shorthands for tests that build modules by hand: tensor types, the scalar
// types of loop counters and conditions, i32 constants.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "ir/builder.h"
#include "ir/type.h"

namespace jft::compiler::testing {

inline ir::Type tensor(ir::ElementType e, std::vector<int64_t> dims) {
  return ir::Type::tensor(e, std::move(dims));
}
inline ir::Type f32(std::vector<int64_t> dims) {
  return tensor(ir::ElementType::F32, std::move(dims));
}
inline ir::Type i32(std::vector<int64_t> dims) {
  return tensor(ir::ElementType::I32, std::move(dims));
}

inline const ir::Type kI32 = ir::Type::scalar(ir::ElementType::I32);
inline const ir::Type kPred = ir::Type::scalar(ir::ElementType::PRED);

inline ir::ValueId i32Constant(ir::Builder& b, int value) {
  return b.constant(ir::denseFromValues(kI32, {static_cast<double>(value)}));
}

}  // namespace jft::compiler::testing
