// Text of attributes, dense literals and locations, in StableHLO's spelling
// where StableHLO has one:
//   array<i64: 1, 2>            integer lists (broadcast_dimensions, ...)
//   dense<[[1, 2], [3, 4]]>     dense literals (a splat prints one value)
//   #stablehlo.dot<...>, #stablehlo.gather<...>, #stablehlo.conv<[b, 0, f]x...>
//   #stablehlo<comparison_direction LT>, #stablehlo<precision DEFAULT>, ...
// Integers print without their MLIR type suffix (the IR does not keep it);
// floats print in their shortest round-trip form (float_text.h).
#pragma once

#include <string>

#include "ir/attribute.h"
#include "ir/location.h"
#include "ir/print_options.h"

namespace jft::ir {

std::string printAttribute(const Attribute& attr, const PrintOptions& options = {});

// `dense<...>` without the trailing type.
std::string printDenseLiteral(const DenseElements& dense,
                              const PrintOptions& options = {});

// `name = value` pairs sorted by name (MLIR's dictionary order), unit
// attributes as the bare name, wrapped in braces: `{a = 1, b}`.
std::string printAttrDict(const NamedAttrs& attrs, const PrintOptions& options = {});

// The text inside `loc(...)`: `"zoo.py":17:20`, `"name"("zoo.py":1:2)`,
// `callsite(A at B)`, `fused[A, B]`, `unknown`.
std::string printLocation(const LocationTable& table, LocId id);
// Only the frame a user looks at (LocationTable::userFrame): `"zoo.py":17:20`
// or `unknown`.
std::string printUserFrame(const LocationTable& table, LocId id);

// A double-quoted string with MLIR escapes (\" \\ \n and \XX for the rest).
std::string quoteString(const std::string& text);

}  // namespace jft::ir
