// Every supported op on every supported type gives a complete kernel that
// the TTIR checker accepts (and, with JFT_TTIR_DUMP_DIR set, is written out
// for compiling with real Triton on a GPU machine).
#include "codegen/ttir/elementwise.h"

#include <gtest/gtest.h>

#include <set>

#include "elementwise_cases.h"
#include "ir/builder.h"
#include "ttir_syntax.h"

namespace jft::codegen::ttir::testing {
namespace {

TEST(Elementwise, EveryOpAndTypeIsWellFormedTtir) {
  const std::vector<OpCase> cases = allElementwiseCases();
  EXPECT_GT(cases.size(), 500u);
  std::set<std::string> names;
  int dumped = 0;
  for (const OpCase& c : cases) {
    EXPECT_TRUE(names.insert(c.name).second) << "two cases named " << c.name;
    StatusOr<Kernel> k = elementwiseKernel(c);
    ASSERT_TRUE(k.isOk()) << c.name << ": " << k.status().message();
    Status s = checkTtirSyntax(k->ttir);
    EXPECT_TRUE(s.isOk()) << c.name << ": " << s.message() << "\n" << k->ttir;
    dumped += dumpKernel(c, *k);
  }
  if (dumped) std::printf("wrote %d kernels to JFT_TTIR_DUMP_DIR\n", dumped);
}

TEST(Elementwise, HipNamesOcmlFunctions) {
  OpCase c{ir::OpKind::Tanh,
           {ir::Type::tensor(ir::ElementType::F64, {kLanes})},
           ir::Type::tensor(ir::ElementType::F64, {kLanes}),
           {},
           "tanh_f64_hip"};
  StatusOr<Kernel> k = elementwiseKernel(c, Target::kHip);
  ASSERT_TRUE(k.isOk());
  EXPECT_NE(k->op.find("symbol = \"__ocml_tanh_f64\""), std::string::npos) << k->op;
  EXPECT_TRUE(checkTtirSyntax(k->ttir).isOk());
}

// reduce_precision to bf16's format on f32: round to nearest even at bit 16
// (bias 0x7FFF plus the last kept bit), clear the 16 low bits; the exponent
// is as wide as f32's, so no range check. To (5, 10) the f32 exponent field
// is compared with (127 +- 15) << 23.
TEST(Elementwise, ReducePrecisionRoundsTheBitsAsXlaDoes) {
  auto kernel = [](int64_t exponent, int64_t mantissa) {
    OpCase c{ir::OpKind::ReducePrecision,
             {ir::Type::tensor(ir::ElementType::F32, {kLanes})},
             ir::Type::tensor(ir::ElementType::F32, {kLanes}),
             {{"exponent_bits", exponent}, {"mantissa_bits", mantissa}},
             "reduce_precision_case"};
    StatusOr<Kernel> k = elementwiseKernel(c);
    EXPECT_TRUE(k.isOk());
    EXPECT_TRUE(checkTtirSyntax(k->ttir).isOk()) << k->ttir;
    return k->op;
  };
  const std::string bf16 = kernel(8, 7);
  EXPECT_NE(bf16.find("dense<65536>"), std::string::npos) << bf16;  // the last kept bit
  EXPECT_NE(bf16.find("dense<32767>"), std::string::npos)
      << bf16;  // half of it, less one
  EXPECT_NE(bf16.find("dense<-65536>"), std::string::npos) << bf16;  // truncation mask
  EXPECT_EQ(bf16.find("arith.cmpi ugt"), std::string::npos) << bf16;
  const std::string f16 = kernel(5, 10);
  EXPECT_NE(f16.find("dense<" + std::to_string((127 + 15) << 23) + ">"),
            std::string::npos)
      << f16;
  EXPECT_NE(f16.find("dense<" + std::to_string((127 - 15) << 23) + ">"),
            std::string::npos)
      << f16;
  EXPECT_NE(f16.find("arith.cmpi ugt"), std::string::npos);
  // The sign mask 0x80000000 as an i32 literal.
  EXPECT_NE(f16.find("dense<-2147483648>"), std::string::npos) << f16;
  EXPECT_NE(f16.find("arith.cmpi ule"), std::string::npos);
}

bool emittable(ir::OpKind kind, std::vector<ir::Type> operands, ir::Type result,
               std::string* why) {
  ir::Module m;
  ir::Builder b(m);
  auto args = b.beginFunction("main", operands, {result});
  ir::ValueId r = b.op1(kind, args, result);
  b.ret({r});
  const ir::Function& f = b.endFunction();
  return isEmittableElementwise(m, f.body.ops.front(), why);
}

TEST(Elementwise, SaysNoWithAReason) {
  using ir::ElementType;
  using ir::OpKind;
  using ir::Type;
  auto t = [](ElementType e) { return Type::tensor(e, {4}); };
  std::string why;
  EXPECT_FALSE(emittable(OpKind::Add, {t(ElementType::C64), t(ElementType::C64)},
                         t(ElementType::C64), &why));
  EXPECT_NE(why.find("complex<f32>"), std::string::npos) << why;
  EXPECT_FALSE(emittable(OpKind::Add, {t(ElementType::I4), t(ElementType::I4)},
                         t(ElementType::I4), &why));
  EXPECT_NE(why.find("i4"), std::string::npos) << why;
  EXPECT_FALSE(emittable(OpKind::Exponential, {t(ElementType::F8E4M3FNUZ)},
                         t(ElementType::F8E4M3FNUZ), &why));
  EXPECT_FALSE(emittable(OpKind::Tanh, {t(ElementType::I32)}, t(ElementType::I32), &why));
  EXPECT_NE(why.find("tanh of i32"), std::string::npos) << why;
  EXPECT_FALSE(emittable(OpKind::Subtract, {t(ElementType::PRED), t(ElementType::PRED)},
                         t(ElementType::PRED), &why));
  EXPECT_FALSE(emittable(OpKind::ShiftLeft, {t(ElementType::F32), t(ElementType::F32)},
                         t(ElementType::F32), &why));
  EXPECT_FALSE(emittable(OpKind::BitcastConvert, {t(ElementType::F32)},
                         t(ElementType::F16), &why));
  EXPECT_NE(why.find("different widths"), std::string::npos) << why;
  EXPECT_FALSE(emittable(OpKind::Dot, {t(ElementType::F32), t(ElementType::F32)},
                         Type::scalar(ElementType::F32), &why));
  EXPECT_NE(why.find("not an elementwise op"), std::string::npos) << why;
  EXPECT_TRUE(emittable(OpKind::Add, {t(ElementType::BF16), t(ElementType::BF16)},
                        t(ElementType::BF16), &why));
}

}  // namespace
}  // namespace jft::codegen::ttir::testing
