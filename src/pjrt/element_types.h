// Element types as the PJRT ABI numbers them: names and storage widths.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "pjrt/abi.h"
#include "support/status.h"

namespace jft::pjrt {

struct ElementTypeInfo {
  const char* name;  // "f32", "bf16", ...
  int bit_width;     // storage bits of one element (1, 2, 4, 8, ... 128)
};

// nullopt for values outside the enum and for INVALID.
std::optional<ElementTypeInfo> elementTypeInfo(int type);

// The bytes one element occupies in a host or device buffer we transfer.
// Sub-byte types and TOKEN are refused (UNIMPLEMENTED / INVALID_ARGUMENT).
StatusOr<uint64_t> transferableElementBytes(int type);

}  // namespace jft::pjrt
