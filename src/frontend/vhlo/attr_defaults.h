// StableHLO's defaults: VHLO spells every attribute out, StableHLO's
// generic form omits those equal to their default (compare_type NOTYPE,
// all-DEFAULT precision_config, unit strides and dilations, zero padding,
// channel_id 0, false flags, empty custom_call lists, default result
// accuracy...). The rules follow StableHLO's own VHLO legalization.
#pragma once

#include <string_view>

#include "frontend/mlir_tree.h"
#include "frontend/vhlo/diag.h"

namespace jft::frontend::vhlo {

// Whether attribute `name` of `op` (an op of `family`, e.g. "convolution")
// holds its StableHLO default and is left out of the ir attributes.
bool isStableHloDefault(const MOp& op, std::string_view family, std::string_view name,
                        const MAttr& attr, const OpSite& site);

}  // namespace jft::frontend::vhlo
