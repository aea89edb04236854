// GetCostAnalysis's answer: the compiler's flops and transcendentals
// (compiler/cost_analysis.h) and the bytes the loaded program's work reads
// and writes, under the property names of XLA's cost analysis, as floats:
// "flops", "transcendentals", "bytes accessed". Bytes are counted at our
// granularity: every kernel launch's buffers, every library call's and
// collective's operands and results, copies twice (read and write), memsets
// once; loop bodies and branches once, like the flops.
#pragma once

#include <cstdint>
#include <memory>

#include "pjrt/named_values.h"
#include "runtime/program.h"

namespace jft::pjrt {

uint64_t bytesAccessed(const runtime::Program& program);

std::shared_ptr<const NamedValues> costProperties(double flops, double transcendentals,
                                                  const runtime::Program& program);

}  // namespace jft::pjrt
