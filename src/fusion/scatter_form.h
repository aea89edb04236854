// What a stablehlo.scatter's update computation does, for the scatter
// family: replace (x.at[i].set: the region returns the update), or one
// binary op of (current, update) in either order (add, max, min, mul).
// The emitter runs replace with plain stores and the others with atomics;
// scatterSupport says which (combine, element type) pairs it can run.
// Combiners with no atomic (multiply, any other region of elementwise ops,
// max/min of f64 and of 8/16-bit types, add of 8-bit types) run as a
// compare-and-swap loop: on the element itself when it is 32 or 64 bits, on
// the aligned 32-bit word holding it when it is 8 or 16 bits.
// Complex elements: set and add only (part by part); passes/complex_scatter
// turns other complex combines whose updates cannot collide into set.
#pragma once

#include <string>

#include "ir/module.h"

namespace jft::fusion {

enum class ScatterCombine { kReplace, kAdd, kMax, kMin, kMul, kOther };

ScatterCombine scatterCombineOf(const ir::Op& scatter);

// Whether `scatter` combines through the compare-and-swap loop (its
// combiner has no Triton atomic for its element type).
bool scatterUsesCas(const ir::Module& module, const ir::Op& scatter);

// Whether the result can depend on the order colliding updates are applied
// in: every combiner but integer add/max/min and float max/min (replace
// with repeated indices, float add's rounding, multiply, any region).
// Under --xla_gpu_exclude_nondeterministic_ops these apply their updates in
// StableHLO's order instead of through atomics.
bool scatterOrderDependent(const ir::Module& module, const ir::Op& scatter);

// Whether updates at two different window offsets can never reach the same
// operand element: every operand dim that takes a scatter index has a window
// of 1 or of the whole dim (whose start can then only be 0; any other start
// drops the update). Then rows map to disjoint or identical slices, as in an
// embedding gradient x.at[idx].add(g) over full rows.
bool scatterWindowsDisjoint(const ir::Module& module, const ir::Op& scatter);

// Empty when the scatter family runs `scatter`; otherwise why not.
std::string scatterUnsupported(const ir::Module& module, const ir::Op& scatter);

}  // namespace jft::fusion
