// The element type table. Order follows the PJRT_Buffer_Type enum.
#include "pjrt/element_types.h"

#include <array>

namespace jft::pjrt {
namespace {

constexpr std::array<ElementTypeInfo, 34> kTable = {{
    {"invalid", 0},
    {"pred", 8},
    {"s8", 8},
    {"s16", 16},
    {"s32", 32},
    {"s64", 64},
    {"u8", 8},
    {"u16", 16},
    {"u32", 32},
    {"u64", 64},
    {"f16", 16},
    {"f32", 32},
    {"f64", 64},
    {"bf16", 16},
    {"c64", 64},
    {"c128", 128},
    {"f8e5m2", 8},
    {"f8e4m3fn", 8},
    {"f8e4m3b11fnuz", 8},
    {"f8e5m2fnuz", 8},
    {"f8e4m3fnuz", 8},
    {"s4", 4},
    {"u4", 4},
    {"token", 0},
    {"s2", 2},
    {"u2", 2},
    {"f8e4m3", 8},
    {"f8e3m4", 8},
    {"f8e8m0fnu", 8},
    {"f4e2m1fn", 4},
    {"s1", 1},
    {"u1", 1},
    {"f6e2m3fn", 6},
    {"f6e3m2fn", 6},
}};

}  // namespace

std::optional<ElementTypeInfo> elementTypeInfo(int type) {
  if (type <= PJRT_Buffer_Type_INVALID || type >= static_cast<int>(kTable.size()))
    return std::nullopt;
  return kTable[type];
}

StatusOr<uint64_t> transferableElementBytes(int type) {
  auto info = elementTypeInfo(type);
  if (!info) return invalidArgument("unknown element type " + std::to_string(type));
  if (type == PJRT_Buffer_Type_TOKEN)
    return invalidArgument("a token has no data to transfer");
  if (info->bit_width % 8 != 0) {
    return unimplemented(std::string("transfers of the sub-byte element type ") +
                         info->name + " are not supported yet");
  }
  return static_cast<uint64_t>(info->bit_width / 8);
}

}  // namespace jft::pjrt
