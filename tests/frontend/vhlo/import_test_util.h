// Helpers for importer tests: import a hand-built tree and find its ops.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "frontend/vhlo/import.h"
#include "ir/module.h"

namespace jft::frontend::vhlo_test {

// The first op of `kind` in main's body (not inside regions); fails the
// test when absent.
inline const ir::Op* firstOp(const ir::Module& m, ir::OpKind kind) {
  const ir::Function* main = m.findFunction("main");
  if (!main) return nullptr;
  for (const ir::Op& op : main->body.ops)
    if (op.kind == kind) return &op;
  return nullptr;
}

inline bool hasAttr(const ir::Op& op, std::string_view name) {
  return ir::findAttr(op.attrs, name) != nullptr;
}

inline std::string attrNames(const ir::Op& op) {
  std::string s;
  for (const auto& [name, value] : op.attrs) s += (s.empty() ? "" : ",") + name;
  return s;
}

}  // namespace jft::frontend::vhlo_test
