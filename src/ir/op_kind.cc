#include "ir/op_kind.h"

namespace jft::ir {
namespace {

constexpr std::string_view kNames[] = {
#define JFT_OP(e, s) s,
#include "ir/ops.def"
#undef JFT_OP
};

}  // namespace

std::string_view opKindName(OpKind kind) {
  return kNames[static_cast<int>(kind)];
}

std::optional<OpKind> parseOpKind(std::string_view name) {
  for (int i = 0; i < kNumOpKinds; ++i)
    if (kNames[i] == name) return static_cast<OpKind>(i);
  return std::nullopt;
}

}  // namespace jft::ir
