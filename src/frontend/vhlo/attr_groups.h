// VHLO fields that StableHLO holds as one attribute: dot_general's four
// dimension lists (dot_dimension_numbers) and seven algorithm fields
// (algorithm), convolution's nine dimension fields and gather's six
// (dimension_numbers), scatter's six (scatter_dimension_numbers), and
// send/recv's channel_id and channel_type (channel_handle).
#pragma once

#include <set>
#include <string_view>

#include "frontend/mlir_tree.h"
#include "frontend/vhlo/diag.h"
#include "ir/attribute.h"
#include "support/status.h"

namespace jft::frontend::vhlo {

// Appends the grouped attributes of an op of `family` to `out` and returns
// the VHLO attribute names they consumed.
StatusOr<std::set<std::string_view>> groupFields(const MOp& op, std::string_view family,
                                                 const OpSite& site, ir::NamedAttrs& out);

}  // namespace jft::frontend::vhlo
