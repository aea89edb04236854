// What the local rewrites can tell about a value from its definition.
//
// A splat is a tensor whose elements all hold one value: a constant with
// equal elements, or a broadcast_in_dim, reshape or transpose of a splat
// (those move elements, never change them). Complex splats are not reported.
#pragma once

#include <cstdint>
#include <optional>

#include "ir/attribute.h"
#include "passes/local_rewriter.h"

namespace jft::passes {

struct SplatValue {
  ir::ElementType element;
  uint64_t bits;  // the low bitWidth(element) bits of the encoding
};

std::optional<SplatValue> knownSplat(const RewriteContext& context, ir::ValueId value);

// The full literal of a value of at most `max_elements` elements, when it is a
// constant or a splat; nullopt otherwise.
std::optional<ir::DenseElements> knownSmallLiteral(const RewriteContext& context,
                                                   ir::ValueId value,
                                                   int64_t max_elements);

// Integer or pred splat holding `value` (pred: 0 or 1).
bool isIntegerSplatOf(const SplatValue& splat, int64_t value);
// Float splat holding exactly 1.0.
bool isFloatOne(const SplatValue& splat);
// Float splat holding a zero of the given sign.
bool isFloatZero(const SplatValue& splat, bool negative);
// Float splat holding an infinity of the given sign.
bool isFloatInfinity(const SplatValue& splat, bool negative);

}  // namespace jft::passes
