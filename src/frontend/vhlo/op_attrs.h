// An op's VHLO attributes to its ir attribute list, in StableHLO's generic
// form (what StableHLO's own VHLO-to-StableHLO legalization produces):
// - field groups become one typed attribute (attr_groups.h);
// - collectives' channel_id becomes channel_handle; use_global_device_ids
//   and has_dynamic_root become unit attributes when true;
// - attributes equal to their StableHLO default are dropped (attr_defaults.h);
// - every attribute of a VHLO op takes its typed ir form; attributes of
//   other dialects (mhlo.*, sdy.*) are converted generically.
// The list is sorted by name, as MLIR orders attribute dictionaries.
#pragma once

#include "frontend/mlir_tree.h"
#include "frontend/vhlo/diag.h"
#include "frontend/vhlo/op_table.h"
#include "ir/attribute.h"
#include "support/status.h"

namespace jft::frontend::vhlo {

StatusOr<ir::NamedAttrs> importOpAttrs(const MOp& op, const VhloOpInfo& info,
                                       const OpSite& site);

// "vhlo.dot_general_v2" -> "dot_general": the name shared by all versions.
std::string_view opFamily(std::string_view vhlo_name);

}  // namespace jft::frontend::vhlo
