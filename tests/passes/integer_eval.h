// A reference evaluator for pass tests: runs a function body of integer ops
// on the host, so a rewrite is checked by the values it computes (against
// numpy-style arithmetic or published test vectors), not by its shape.
// Values are row-major; each element is held wrapped to its type (two's
// complement for signed types, the bits for unsigned ones).
#pragma once

#include <cstdint>
#include <vector>

#include "ir/module.h"

namespace jft::passes::testing {

struct Tensor {
  std::vector<int64_t> dims;
  std::vector<int64_t> data;
};

int64_t wrap(int64_t v, ir::ElementType t);
int64_t count(const std::vector<int64_t>& dims);
std::vector<int64_t> unflatten(int64_t flat, const std::vector<int64_t>& dims);
int64_t flatten(const std::vector<int64_t>& index, const std::vector<int64_t>& dims);

// Evaluates the first function of `m` on `args`: integer constants,
// convert, bitcast_convert, reshape, transpose, broadcast_in_dim, iota,
// slice, concatenate, add, multiply, and, or, xor, shifts, compare, select
// and add-reduce. An op outside that list fails the test.
std::vector<Tensor> evaluate(const ir::Module& m, const std::vector<Tensor>& args);

}  // namespace jft::passes::testing
