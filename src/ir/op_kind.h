// OpKind: one enumerator per StableHLO op (see ops.def).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace jft::ir {

enum class OpKind : uint16_t {
#define JFT_OP(e, s) e,
#include "ir/ops.def"
#undef JFT_OP
};

inline constexpr int kNumOpKinds = 0
#define JFT_OP(e, s) +1
#include "ir/ops.def"
#undef JFT_OP
    ;

// The StableHLO op name without dialect prefix: "dot_general". Call and
// Return are func-level ops and print as "func.call" / "func.return" in the
// generic form; opKindName returns "call" / "return".
std::string_view opKindName(OpKind kind);
std::optional<OpKind> parseOpKind(std::string_view name);

}  // namespace jft::ir
