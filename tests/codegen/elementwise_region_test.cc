// Reduce combiner regions and constants: the scalar forms other emitters
// build on.
#include <gtest/gtest.h>

#include "codegen/ttir/elementwise.h"
#include "ir/builder.h"

namespace jft::codegen::ttir::testing {
namespace {

using ir::ElementType;
using ir::OpKind;
using ir::Type;

std::string constantText(ElementType e, std::vector<int64_t> shape,
                         std::vector<uint8_t> bytes) {
  TtirWriter w;
  emitSplatConstant(
      w, e, shape,
      std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  return w.body();
}

TEST(ElementwiseConstants, SpelledExactly) {
  EXPECT_NE(constantText(ElementType::I32, {}, {0xFB, 0xFF, 0xFF, 0xFF})
                .find("arith.constant -5 : i32"),
            std::string::npos);
  // Unsigned bit patterns are written as the signed value of the same bits.
  EXPECT_NE(constantText(ElementType::U8, {4}, {0xFF}).find("dense<-1> : tensor<4xi8>"),
            std::string::npos);
  EXPECT_NE(constantText(ElementType::PRED, {8}, {1}).find("dense<true> : tensor<8xi1>"),
            std::string::npos);
  EXPECT_NE(constantText(ElementType::PRED, {}, {0}).find("arith.constant false"),
            std::string::npos);
  EXPECT_NE(constantText(ElementType::F32, {2}, {0x00, 0x00, 0x80, 0x3F})
                .find("dense<0x3F800000> : tensor<2xf32>"),
            std::string::npos);
  EXPECT_NE(constantText(ElementType::BF16, {}, {0xC0, 0x7F}).find("0x7FC0 : bf16"),
            std::string::npos);
}

TEST(ElementwiseRegion, AddCombinerOnScalars) {
  ir::Module m;
  ir::Builder b(m);
  const Type f = Type::scalar(ElementType::BF16);
  b.beginFunction("main", {}, {});
  auto args = b.beginRegion({f, f});
  ir::ValueId sum = b.op1(OpKind::Add, {args[0], args[1]}, f);
  b.ret({sum});
  ir::Region region = b.endRegion();
  b.ret({});
  b.endFunction();
  TtirWriter w;
  StatusOr<std::vector<Value>> r = emitScalarRegion(
      w, m, region, {{"%a", "bf16", {}, "bf16"}, {"%b", "bf16", {}, "bf16"}});
  ASSERT_TRUE(r.isOk()) << r.status().message();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].type, "bf16");
  EXPECT_NE(w.body().find("arith.extf %a : bf16 to f32"), std::string::npos) << w.body();
  EXPECT_NE(w.body().find("arith.addf"), std::string::npos) << w.body();
  EXPECT_NE(w.body().find(": f32 to bf16"), std::string::npos) << w.body();
}

TEST(ElementwiseRegion, RejectsOpsACombinerCannotHold) {
  ir::Module m;
  ir::Builder b(m);
  const Type f = Type::scalar(ElementType::F32);
  b.beginFunction("main", {}, {});
  auto args = b.beginRegion({f, f});
  ir::ValueId x = b.op1(OpKind::Dot, {args[0], args[1]}, f);
  b.ret({x});
  ir::Region region = b.endRegion();
  b.ret({});
  b.endFunction();
  TtirWriter w;
  StatusOr<std::vector<Value>> r = emitScalarRegion(
      w, m, region, {{"%a", "f32", {}, "f32"}, {"%b", "f32", {}, "f32"}});
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.status().code(), StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace jft::codegen::ttir::testing
