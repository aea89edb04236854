// complex_iota: iota of complex values as complex(iota of the component type,
// zeros), the same values, keeping the iota's dimension and result id.
#include "passes/complex_iota.h"

#include "pass_test_util.h"

namespace jft::passes {
namespace {

using namespace testing;

TEST(ComplexIota, BecomesComplexOfARealIotaAndZeros) {
  for (ElementType complex_type : {ElementType::C64, ElementType::C128}) {
    ir::Module m;
    ir::Builder b(m);
    b.beginFunction("main", {}, {tensor(complex_type, {3, 5})});
    const ValueId iota = b.op1(OpKind::Iota, {}, tensor(complex_type, {3, 5}),
                               {{"iota_dimension", int64_t{1}}});
    b.ret({iota});
    b.endFunction();

    EXPECT_TRUE(splitComplexIotas(m));
    expectVerifies(m);
    const ir::Region& body = mainOf(m).body;
    EXPECT_EQ(kindsOf(body), (std::vector<OpKind>{OpKind::Iota, OpKind::Constant,
                                                  OpKind::Complex, OpKind::Return}));
    const ElementType part = ir::complexComponent(complex_type);
    EXPECT_EQ(m.typeOf(body.ops[0].results[0]), tensor(part, {3, 5}));
    EXPECT_EQ(*ir::findAttrAs<int64_t>(body.ops[0].attrs, "iota_dimension"), 1);
    const auto* zero = ir::findAttrAs<ir::DenseElements>(body.ops[1].attrs, "value");
    ASSERT_NE(zero, nullptr);
    EXPECT_TRUE(zero->splat);
    EXPECT_EQ(m.typeOf(body.ops[1].results[0]), tensor(part, {3, 5}));
    EXPECT_EQ(body.ops[2].results[0], iota);
    EXPECT_EQ(body.ops[2].operands,
              (std::vector<ValueId>{body.ops[0].results[0], body.ops[1].results[0]}));
    EXPECT_FALSE(splitComplexIotas(m));
  }
}

TEST(ComplexIota, RealIotasStay) {
  ir::Module m;
  ir::Builder b(m);
  b.beginFunction("main", {}, {f32({4})});
  b.ret({b.op1(OpKind::Iota, {}, f32({4}), {{"iota_dimension", int64_t{0}}})});
  b.endFunction();
  EXPECT_FALSE(splitComplexIotas(m));
}

}  // namespace
}  // namespace jft::passes
