#include "frontend/mlir_tree.h"

namespace jft::frontend {

const MAttr* MAttr::get(std::string_view key) const {
  if (kind != Kind::Dictionary && kind != Kind::Struct) return nullptr;
  for (const auto& [name, value] : entries)
    if (name == key) return value.get();
  return nullptr;
}

const MAttr* MOp::attr(std::string_view key) const {
  for (const auto& [name, value] : attrs)
    if (name == key) return value.get();
  return nullptr;
}

}  // namespace jft::frontend
