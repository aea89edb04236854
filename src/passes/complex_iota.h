// complex_iota: an iota of complex values (JAX's DCT and complex loggamma
// build one) becomes `complex(iota, 0)` in the component type, which the loop
// family runs; StableHLO's complex iota counts along the real axis.
//
// Before: the IR verifies. After: it verifies, no iota has a complex result,
// and each replaced value is the same.
#pragma once

#include "ir/module.h"

namespace jft::passes {

// Returns true when any iota was rewritten.
bool splitComplexIotas(ir::Module& module);

}  // namespace jft::passes
