// The op/type sweep shared by the elementwise tests: every op the emitter
// supports on every element type it supports.
#pragma once

#include <vector>

#include "elementwise_kernel.h"

namespace jft::codegen::ttir::testing {

std::vector<OpCase> allElementwiseCases();
// Element types the emitter computes with.
std::vector<ir::ElementType> floatTypes();
std::vector<ir::ElementType> integerTypes();

}  // namespace jft::codegen::ttir::testing
