// The walk that turns a generic tree into an ir::Module: module, functions,
// regions and ops, with tree value ids renumbered into the module's value
// table and scoped the way MLIR scopes them (a value defined in a region is
// not visible after it).
#pragma once

#include <cstdint>
#include <vector>

#include "frontend/mlir_tree.h"
#include "frontend/vhlo/diag.h"
#include "frontend/vhlo/locations.h"
#include "frontend/vhlo/op_table.h"
#include "ir/module.h"
#include "support/status.h"

namespace jft::frontend::vhlo {

class TreeImporter {
 public:
  explicit TreeImporter(const MTree& tree);

  StatusOr<ir::Module> run();

 private:
  // States of a tree value id besides "mapped to this ir value".
  static constexpr uint32_t kUndefined = UINT32_MAX;
  static constexpr uint32_t kOutOfScope = UINT32_MAX - 1;

  Status importModule(const MOp& module);
  Status importFunction(const MOp& func, const OpSite& site);
  // One single-block region; `defined` collects the tree ids it defines so
  // the caller can close their scope.
  StatusOr<ir::Region> importRegion(const MRegion& region, const OpSite& owner,
                                    int depth);
  StatusOr<ir::Op> importOp(const MOp& op, int depth);
  // Ops that only restate a value on one device (the casts VHLO wraps around
  // Shardy ops, sharding constraints): their result becomes the operand's
  // value. False for every other op.
  StatusOr<bool> forwardTransparentOp(const MOp& op);
  Status checkCounts(const MOp& op, const VhloOpInfo& info, const OpSite& site) const;

  StatusOr<ir::ValueId> use(uint32_t tree_id, const OpSite& site) const;
  StatusOr<ir::ValueId> define(uint32_t tree_id, const MTypePtr& type,
                               const OpSite& site);

  OpSite siteOf(const MOp& op, ir::LocId* loc_out = nullptr);

  const MTree& tree_;
  ir::Module module_;
  LocationImporter locations_;
  std::vector<uint32_t> values_;  // tree value id -> ir value id or a state
  std::vector<uint32_t> scope_;   // tree ids defined in the open regions, in order
};

}  // namespace jft::frontend::vhlo
