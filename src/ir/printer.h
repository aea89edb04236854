// The IR as text, close to StableHLO's pretty syntax, for dumps, reports and
// golden tests. Deterministic; parser.h reads it back (keep the two in step).
//
// One scheme for every op, on one line (regions excepted):
//   %3 = stablehlo.add %1, %2 : tensor<4xf32>
//   %4 = stablehlo.transpose %3 {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) ->
//   tensor<3x2xf32> %5:2 = stablehlo.sort %a, %b {dimension = 0} ({ ^bb0(%arg1:
//   tensor<f32>, %arg2: tensor<f32>, ...):
//     ...
//     stablehlo.return %9 : tensor<i1>
//   }) : (tensor<4xf32>, tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>)
// The type list shrinks to one type when the op has one result and every
// operand has that same type. Attributes print sorted by name (MLIR's
// dictionary order). Special spellings: `stablehlo.constant dense<..> : T`,
// `call @f(%0) : ...` and `return` inside a function, `stablehlo.return` in an
// op's region. Values are numbered per function in order of definition: block
// arguments %arg0.., op results %0.. (multi-result ops `%5:2`, used as %5#1).
// With PrintOptions::print_locations every op and function ends in
// `loc("zoo.py":17:20)` (or the whole MLIR location with full_locations).
#pragma once

#include <string>

#include "ir/module.h"
#include "ir/print_options.h"

namespace jft::ir {

std::string printModule(const Module& module, const PrintOptions& options = {});
std::string printFunction(const Module& module, const Function& function,
                          const PrintOptions& options = {});

// One op (with its regions). With `context` (the function holding the op)
// values carry the names printFunction gives them; without it every value is
// named by its id: %v12.
std::string printOp(const Module& module, const Op& op, const PrintOptions& options = {},
                    const Function* context = nullptr);

// A value's type for messages; "<invalid value %vN>" for an id out of range.
std::string valueTypeText(const Module& module, ValueId id);

}  // namespace jft::ir
