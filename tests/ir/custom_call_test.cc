// Which custom calls are typed XLA FFI calls (ir/custom_call.h): JAX's FFI
// lowering writes api_version 1 with the dictionary in mhlo.backend_config,
// which XLA reads as api_version 4; every other form is not an FFI call.
#include "ir/custom_call.h"

#include <gtest/gtest.h>

namespace jft::ir {
namespace {

Op customCall(NamedAttrs attrs) {
  Op op;
  op.kind = OpKind::CustomCall;
  op.attrs = std::move(attrs);
  op.attrs.emplace_back("call_target_name", std::string("xla_ffi_python_gpu_callback"));
  return op;
}

NamedAttrs indexDictionary() {
  return NamedAttrs{{"index", Attribute(int64_t{3})}};
}

TEST(TypedFfiCall, JaxsFormInMhloBackendConfig) {
  // api_version 1 is StableHLO's default, so the import drops it: absent.
  Op op = customCall({{"mhlo.backend_config", Attribute(indexDictionary())}});
  const NamedAttrs empty;
  const NamedAttrs* config = typedFfiConfig(op, empty);
  ASSERT_NE(config, nullptr);
  EXPECT_EQ(*config, indexDictionary());
  op.attrs.emplace_back("api_version", CustomCallApiVersion::ORIGINAL);
  EXPECT_TRUE(isTypedFfiCall(op));
}

TEST(TypedFfiCall, ApiVersionFourWithDictionaryOrNothing) {
  const NamedAttrs empty;
  Op with = customCall({{"api_version", CustomCallApiVersion::TYPED_FFI},
                        {"backend_config", Attribute(indexDictionary())}});
  ASSERT_NE(typedFfiConfig(with, empty), nullptr);
  EXPECT_EQ(*typedFfiConfig(with, empty), indexDictionary());
  Op without = customCall({{"api_version", CustomCallApiVersion::TYPED_FFI}});
  EXPECT_EQ(typedFfiConfig(without, empty), &empty);
}

TEST(TypedFfiCall, OtherFormsAreNot) {
  // A string backend_config: an old-style custom call, the dictionary only
  // carried along.
  EXPECT_FALSE(isTypedFfiCall(
      customCall({{"backend_config", std::string("opaque")},
                  {"mhlo.backend_config", Attribute(indexDictionary())}})));
  EXPECT_FALSE(isTypedFfiCall(customCall({})));
  EXPECT_FALSE(isTypedFfiCall(
      customCall({{"api_version", CustomCallApiVersion::STATUS_RETURNING},
                  {"mhlo.backend_config", Attribute(indexDictionary())}})));
  Op not_a_call = customCall({{"api_version", CustomCallApiVersion::TYPED_FFI}});
  not_a_call.kind = OpKind::Add;
  EXPECT_FALSE(isTypedFfiCall(not_a_call));
}

}  // namespace
}  // namespace jft::ir
