// The verifier: checks a module against the structural rules of the IR and
// the shape/type constraints of the StableHLO specification
// (openxla/stablehlo docs/spec.md, "Constraints" of each op).
//
// Structural rules, for every op: operands refer to values defined earlier
// in the same region or an enclosing one (results of an op are not visible
// inside its own regions); every value is defined once; every region and
// function body is non-empty and ends in its one `return`; function names
// are unique.
//
// Op rules: elementwise unary/binary ops (equal shapes and types, the
// element type classes the spec allows), compare, select, clamp, convert,
// bitcast_convert, complex/real/imag, broadcast_in_dim, reshape, transpose,
// slice, dynamic_slice, dynamic_update_slice, concatenate, pad, iota,
// reverse, constant, reduce, sort, map, while, if, case, dot_general,
// convolution, gather, scatter, reduce_window, select_and_scatter, fft,
// cholesky, triangular_solve, rng_bit_generator, call, composite, return,
// tuple, get_tuple_element, optimization_barrier, after_all,
// get_dimension_size, custom_call (aliases, called computations). Other
// ops get the structural checks only. Quantized types are not modelled;
// element types of dot_general/convolution are not compared (see
// verify_contractions.cc).
//
// All errors are collected (in the order ops appear), one per line, in an
// INVALID_ARGUMENT status: "<op> at <location>: <rule broken>", e.g.
//   stablehlo.add at zoo.py:17:20: operand shapes differ: tensor<4xf32> vs tensor<8xf32>
#pragma once

#include "ir/module.h"
#include "support/status.h"

namespace jft::ir {

Status verifyModule(const Module& module);

}  // namespace jft::ir
