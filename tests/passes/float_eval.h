// A reference evaluator for pass tests of float and complex rewrites: runs a
// function body on the host, each op by its StableHLO spec definition, so a
// rewrite is checked by the values it computes against hand-worked ones.
// Every element is held as a complex<double> (reals with a zero imaginary
// part, pred and integers as their values); f32 rounding is not modelled,
// so tests use data whose sums are exact.
#pragma once

#include <complex>
#include <cstdint>
#include <vector>

#include "ir/module.h"

namespace jft::passes::testing {

struct FloatTensor {
  std::vector<int64_t> dims;
  std::vector<std::complex<double>> data;  // row-major
};

// Evaluates the function `name` of `m` on `args`: constant, reshape,
// broadcast_in_dim, iota, dot_general, add, multiply, compare, select. An op
// outside that list fails the test.
std::vector<FloatTensor> evaluateFloat(const ir::Module& m,
                                       const std::vector<FloatTensor>& args,
                                       const char* name = "main");

}  // namespace jft::passes::testing
