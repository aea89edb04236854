// The region ops of TTIR that fold lanes with a combiner (tt.reduce and
// tt.scan): the scan and reduction emitters write them alike but for the
// combiner's body.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "codegen/ttir/ttir_writer.h"
#include "support/status.h"

namespace jft::codegen::ttir {

using Combine = std::function<StatusOr<std::vector<Value>>(
    const std::vector<Value>& lhs, const std::vector<Value>& rhs)>;

// `"tt.scan"` or `"tt.reduce"` over `operands` along `axis`, its combiner
// written by `combine` on scalars (lhs: the earlier lanes, rhs: the later).
StatusOr<std::vector<Value>> combinerOp(TtirWriter& w, const std::string& op,
                                        const std::vector<Value>& operands, int axis,
                                        const Combine& combine);

}  // namespace jft::codegen::ttir
