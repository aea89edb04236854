// Value types: statically shaped tensors, tokens and tuples.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/element_type.h"

namespace jft::ir {

struct Type {
  enum class Kind : uint8_t { Tensor, Token, Tuple };

  Kind kind = Kind::Tensor;
  ElementType element = ElementType::F32;  // Tensor only
  std::vector<int64_t> dims;               // Tensor only; every dim >= 0
  std::vector<Type> tuple;                 // Tuple only

  static Type tensor(ElementType element, std::vector<int64_t> dims);
  static Type scalar(ElementType element) { return tensor(element, {}); }
  static Type token();
  static Type makeTuple(std::vector<Type> elements);

  bool isTensor() const { return kind == Kind::Tensor; }
  bool isToken() const { return kind == Kind::Token; }
  bool isTuple() const { return kind == Kind::Tuple; }
  int64_t rank() const { return static_cast<int64_t>(dims.size()); }
  // Product of dims (1 for a scalar). Tensor only.
  int64_t numElements() const;
  // numElements() * storageBytes(element). Tensor only.
  int64_t byteSize() const;

  // StableHLO spelling: "tensor<4x8xf32>", "!stablehlo.token", "tuple<...>".
  std::string str() const;

  friend bool operator==(const Type& a, const Type& b);
  friend bool operator!=(const Type& a, const Type& b) { return !(a == b); }
};

}  // namespace jft::ir
