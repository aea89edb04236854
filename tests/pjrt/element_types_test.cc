// Element type widths against the host's own types (an independent reference).
#include "pjrt/element_types.h"

#include <gtest/gtest.h>

#include <complex>
#include <cstdint>

namespace jft::pjrt {
namespace {

TEST(ElementTypes, WidthsMatchHostTypes) {
  EXPECT_EQ(*transferableElementBytes(PJRT_Buffer_Type_PRED), sizeof(bool));
  EXPECT_EQ(*transferableElementBytes(PJRT_Buffer_Type_S8), sizeof(int8_t));
  EXPECT_EQ(*transferableElementBytes(PJRT_Buffer_Type_S16), sizeof(int16_t));
  EXPECT_EQ(*transferableElementBytes(PJRT_Buffer_Type_S32), sizeof(int32_t));
  EXPECT_EQ(*transferableElementBytes(PJRT_Buffer_Type_S64), sizeof(int64_t));
  EXPECT_EQ(*transferableElementBytes(PJRT_Buffer_Type_U8), sizeof(uint8_t));
  EXPECT_EQ(*transferableElementBytes(PJRT_Buffer_Type_U16), sizeof(uint16_t));
  EXPECT_EQ(*transferableElementBytes(PJRT_Buffer_Type_U32), sizeof(uint32_t));
  EXPECT_EQ(*transferableElementBytes(PJRT_Buffer_Type_U64), sizeof(uint64_t));
  EXPECT_EQ(*transferableElementBytes(PJRT_Buffer_Type_F32), sizeof(float));
  EXPECT_EQ(*transferableElementBytes(PJRT_Buffer_Type_F64), sizeof(double));
  EXPECT_EQ(*transferableElementBytes(PJRT_Buffer_Type_C64), sizeof(std::complex<float>));
  EXPECT_EQ(*transferableElementBytes(PJRT_Buffer_Type_C128),
            sizeof(std::complex<double>));
  EXPECT_EQ(*transferableElementBytes(PJRT_Buffer_Type_F16), 2u);
  EXPECT_EQ(*transferableElementBytes(PJRT_Buffer_Type_BF16), 2u);
  for (int type : {PJRT_Buffer_Type_F8E5M2, PJRT_Buffer_Type_F8E4M3FN,
                   PJRT_Buffer_Type_F8E4M3B11FNUZ, PJRT_Buffer_Type_F8E5M2FNUZ,
                   PJRT_Buffer_Type_F8E4M3FNUZ, PJRT_Buffer_Type_F8E4M3,
                   PJRT_Buffer_Type_F8E3M4, PJRT_Buffer_Type_F8E8M0FNU}) {
    EXPECT_EQ(*transferableElementBytes(type), 1u) << type;
  }
}

TEST(ElementTypes, UnknownTypesAreInvalidArguments) {
  // 34 is the first value past the 0.114 enum (F6E3M2FN is 33).
  for (int type : {-1, 0, 34, 1000}) {
    auto bytes = transferableElementBytes(type);
    ASSERT_FALSE(bytes.isOk()) << type;
    EXPECT_EQ(bytes.status().code(), StatusCode::kInvalidArgument);
  }
  EXPECT_EQ(transferableElementBytes(PJRT_Buffer_Type_TOKEN).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(ElementTypes, SubByteTypesAreRefusedByName) {
  auto bytes = transferableElementBytes(PJRT_Buffer_Type_S4);
  ASSERT_FALSE(bytes.isOk());
  EXPECT_EQ(bytes.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(bytes.status().message().find("s4"), std::string::npos);
  // The 0.114 FP6 types (32 and 33) are six bits wide: known, not transferable yet.
  auto f6 = transferableElementBytes(32);
  ASSERT_FALSE(f6.isOk());
  EXPECT_EQ(f6.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(f6.status().message().find("f6e2m3fn"), std::string::npos);
  EXPECT_EQ(transferableElementBytes(33).status().code(), StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace jft::pjrt
