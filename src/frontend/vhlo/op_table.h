// The VHLO op table: one row per versioned VHLO op name ("vhlo.add_v1",
// "vhlo.dot_general_v2", ...) of StableHLO 0.9.0 through 1.20.0, taken from
// stablehlo/dialect/VhloOps.td. Each row says which ir op it becomes, the
// StableHLO versions that define it, its operand/result/region counts and
// the attributes every instance must carry. A name missing from the table
// (or a row without an ir op) is rejected as "vhlo.foo_v3 is not supported".
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "ir/op_kind.h"

namespace jft::frontend::vhlo {

// How many of something an op takes: [min, max], max = kUnbounded for
// variadic lists.
struct Count {
  static constexpr int kUnbounded = -1;
  int min = 0;
  int max = 0;

  bool admits(size_t n) const {
    return n >= static_cast<size_t>(min) &&
           (max == kUnbounded || n <= static_cast<size_t>(max));
  }
};

// Extra structure that counts alone cannot express.
enum class OperandShape : uint8_t {
  Plain,
  PairedInputsAndInits,  // reduce, reduce_window: N inputs then N init values
  ScatterGroups,         // scatter: N inputs, one index tensor, N updates
};

struct VhloOpInfo {
  std::string_view name;           // "vhlo.dot_general_v2"
  std::optional<ir::OpKind> kind;  // nullopt: no ir counterpart yet
  std::string_view since, until;   // StableHLO versions; until may be "current"
  Count operands, results, regions;
  std::vector<std::string_view> attrs;  // required attributes (VHLO names)
  OperandShape operand_shape = OperandShape::Plain;
};

// Every row, in alphabetical order of name.
const std::vector<VhloOpInfo>& vhloOpTable();

// The row for a name, or nullptr.
const VhloOpInfo* findVhloOp(std::string_view name);

}  // namespace jft::frontend::vhlo
