// VHLO's enum attributes: bytecode code, attribute mnemonic and case names
// by encoded value (StableHLO's VhloEnums.td). Shared by the bytecode codec
// and the textual-form parser ("#vhlo<comparison_direction_v1 EQ>").
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace jft::frontend::bytecode {

struct VhloEnum {
  uint64_t code;
  std::string_view mnemonic;            // "comparison_direction_v1"
  std::vector<std::string_view> cases;  // index = encoded value; "" = unused
};

const std::vector<VhloEnum>& vhloEnums();

}  // namespace jft::frontend::bytecode
