#include "ir/type.h"

#include "support/int_lists.h"

namespace jft::ir {

Type Type::tensor(ElementType element, std::vector<int64_t> dims) {
  Type t;
  t.kind = Kind::Tensor;
  t.element = element;
  t.dims = std::move(dims);
  return t;
}

Type Type::token() {
  Type t;
  t.kind = Kind::Token;
  return t;
}

Type Type::makeTuple(std::vector<Type> elements) {
  Type t;
  t.kind = Kind::Tuple;
  t.tuple = std::move(elements);
  return t;
}

int64_t Type::numElements() const {
  return product(dims);
}

int64_t Type::byteSize() const {
  return numElements() * storageBytes(element);
}

std::string Type::str() const {
  switch (kind) {
    case Kind::Token:
      return "!stablehlo.token";
    case Kind::Tuple: {
      std::string s = "tuple<";
      for (size_t i = 0; i < tuple.size(); ++i) {
        if (i) s += ", ";
        s += tuple[i].str();
      }
      return s + ">";
    }
    case Kind::Tensor:
      break;
  }
  std::string s = "tensor<";
  for (int64_t d : dims) s += std::to_string(d) + "x";
  s += elementTypeName(element);
  return s + ">";
}

bool operator==(const Type& a, const Type& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Type::Kind::Token:
      return true;
    case Type::Kind::Tuple:
      return a.tuple == b.tuple;
    case Type::Kind::Tensor:
      return a.element == b.element && a.dims == b.dims;
  }
  return false;
}

}  // namespace jft::ir
