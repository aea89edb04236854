// simplify: exact identities apply; the inexact float ones (x + 0.0,
// compare(x, x), complex x * 1) are left alone.
#include "passes/simplify.h"

#include <limits>

#include "pass_test_util.h"

namespace jft::passes {
namespace {

using namespace testing;

// main(x, y) returns the value `make` builds from x and y; simplify runs
// once and the outcome says what main returns after it.
struct Outcome {
  bool changed;
  std::vector<ValueId> returned;
  std::vector<ValueId> args;
  ir::Module module;
};

template <typename Make>
Outcome simplifyOne(const Type& type, Make make) {
  Outcome out;
  ir::Builder b(out.module);
  out.args = b.beginFunction("main", {type, type}, {type});
  b.ret({make(b, out.args[0], out.args[1])});
  b.endFunction();
  out.changed = simplifyAlgebra(out.module);
  expectVerifies(out.module);
  out.returned = returned(mainOf(out.module));
  return out;
}

TEST(Simplify, MultiplyByOneIsExact) {
  const Type t = f32({4});
  Outcome right = simplifyOne(t, [&](ir::Builder& b, ValueId x, ValueId) {
    return b.op1(OpKind::Multiply, {x, splat(b, t, 1.0)}, t);
  });
  EXPECT_TRUE(right.changed);
  EXPECT_EQ(right.returned[0], right.args[0]);
  // 1 * x, the one broadcast from a scalar as JAX writes it.
  Outcome left = simplifyOne(t, [&](ir::Builder& b, ValueId x, ValueId) {
    ValueId one = b.op1(OpKind::BroadcastInDim, {splat(b, f32(), 1.0)}, t,
                        ints("broadcast_dimensions", {}));
    return b.op1(OpKind::Multiply, {one, x}, t);
  });
  EXPECT_EQ(left.returned[0], left.args[0]);
  const Type ints32 = i32({4});
  Outcome integer = simplifyOne(ints32, [&](ir::Builder& b, ValueId x, ValueId) {
    return b.op1(OpKind::Multiply, {x, splat(b, ints32, 1)}, ints32);
  });
  EXPECT_EQ(integer.returned[0], integer.args[0]);
  // bf16 1.0 is 0x3F80.
  const Type bf16 = tensor(ElementType::BF16, {2});
  Outcome narrow = simplifyOne(bf16, [&](ir::Builder& b, ValueId x, ValueId) {
    return b.op1(OpKind::Multiply,
                 {x, b.constant(ir::denseFromBits(bf16, {0x3F80, 0x3F80}))}, bf16);
  });
  EXPECT_EQ(narrow.returned[0], narrow.args[0]);
  // 2.0 is no identity.
  Outcome two = simplifyOne(t, [&](ir::Builder& b, ValueId x, ValueId) {
    return b.op1(OpKind::Multiply, {x, splat(b, t, 2.0)}, t);
  });
  EXPECT_FALSE(two.changed);
}

TEST(Simplify, AddingZeroRespectsSignedZeros) {
  const Type t = f32({4});
  // x + 0.0 is not x for x = -0.0: must stay.
  Outcome plus_zero = simplifyOne(t, [&](ir::Builder& b, ValueId x, ValueId) {
    return b.op1(OpKind::Add, {x, splat(b, t, 0.0)}, t);
  });
  EXPECT_FALSE(plus_zero.changed);
  EXPECT_NE(plus_zero.returned[0], plus_zero.args[0]);
  Outcome zero_plus = simplifyOne(t, [&](ir::Builder& b, ValueId x, ValueId) {
    return b.op1(OpKind::Add, {splat(b, t, 0.0), x}, t);
  });
  EXPECT_FALSE(zero_plus.changed);
  // x + (-0.0) is x for every x.
  Outcome plus_negative_zero = simplifyOne(t, [&](ir::Builder& b, ValueId x, ValueId) {
    return b.op1(OpKind::Add, {x, splat(b, t, -0.0)}, t);
  });
  EXPECT_EQ(plus_negative_zero.returned[0], plus_negative_zero.args[0]);
  // x - 0.0 is x + (-0.0): exact; x - (-0.0) is x + 0.0: not.
  Outcome minus_zero = simplifyOne(t, [&](ir::Builder& b, ValueId x, ValueId) {
    return b.op1(OpKind::Subtract, {x, splat(b, t, 0.0)}, t);
  });
  EXPECT_EQ(minus_zero.returned[0], minus_zero.args[0]);
  Outcome minus_negative_zero = simplifyOne(t, [&](ir::Builder& b, ValueId x, ValueId) {
    return b.op1(OpKind::Subtract, {x, splat(b, t, -0.0)}, t);
  });
  EXPECT_FALSE(minus_negative_zero.changed);
  // 0 - x is a negation, not x.
  Outcome zero_minus = simplifyOne(t, [&](ir::Builder& b, ValueId x, ValueId) {
    return b.op1(OpKind::Subtract, {splat(b, t, -0.0), x}, t);
  });
  EXPECT_FALSE(zero_minus.changed);
}

TEST(Simplify, IntegerZerosAreIdentities) {
  const Type t = i32({3});
  Outcome plus = simplifyOne(t, [&](ir::Builder& b, ValueId x, ValueId) {
    return b.op1(OpKind::Add, {splat(b, t, 0), x}, t);
  });
  EXPECT_EQ(plus.returned[0], plus.args[0]);
  Outcome minus = simplifyOne(t, [&](ir::Builder& b, ValueId x, ValueId) {
    return b.op1(OpKind::Subtract, {x, splat(b, t, 0)}, t);
  });
  EXPECT_EQ(minus.returned[0], minus.args[0]);
}

TEST(Simplify, SelectWithKnownPredicateOrEqualBranches) {
  const Type t = f32({2});
  Outcome on_true = simplifyOne(t, [&](ir::Builder& b, ValueId x, ValueId y) {
    return b.op1(OpKind::Select, {splat(b, pred(), 1), x, y}, t);
  });
  EXPECT_EQ(on_true.returned[0], on_true.args[0]);
  Outcome on_false = simplifyOne(t, [&](ir::Builder& b, ValueId x, ValueId y) {
    return b.op1(OpKind::Select, {splat(b, pred({2}), 0), x, y}, t);
  });
  EXPECT_EQ(on_false.returned[0], on_false.args[1]);
  Outcome same = simplifyOne(t, [&](ir::Builder& b, ValueId x, ValueId y) {
    ValueId p = b.op1(OpKind::Compare, {x, y}, pred({2}),
                      {{"comparison_direction", ir::ComparisonDirection::LT}});
    return b.op1(OpKind::Select, {p, y, y}, t);
  });
  EXPECT_EQ(same.returned[0], same.args[1]);
  // A predicate mixing true and false decides nothing.
  Outcome mixed = simplifyOne(t, [&](ir::Builder& b, ValueId x, ValueId y) {
    ValueId p = b.constant(ir::denseFromValues(pred({2}), {1, 0}));
    return b.op1(OpKind::Select, {p, x, y}, t);
  });
  EXPECT_FALSE(mixed.changed);
}

TEST(Simplify, InvolutionsAndIdempotentOps) {
  const Type t = f32({2});
  Outcome neg = simplifyOne(t, [&](ir::Builder& b, ValueId x, ValueId) {
    return b.op1(OpKind::Negate, {b.op1(OpKind::Negate, {x}, t)}, t);
  });
  EXPECT_EQ(neg.returned[0], neg.args[0]);
  const Type bits = i32({2});
  Outcome inverted = simplifyOne(bits, [&](ir::Builder& b, ValueId x, ValueId) {
    return b.op1(OpKind::Not, {b.op1(OpKind::Not, {x}, bits)}, bits);
  });
  EXPECT_EQ(inverted.returned[0], inverted.args[0]);
  Outcome both = simplifyOne(bits, [&](ir::Builder& b, ValueId x, ValueId) {
    return b.op1(OpKind::And, {x, x}, bits);
  });
  EXPECT_EQ(both.returned[0], both.args[0]);
  Outcome smallest = simplifyOne(t, [&](ir::Builder& b, ValueId x, ValueId) {
    return b.op1(OpKind::Minimum, {x, x}, t);
  });
  EXPECT_EQ(smallest.returned[0], smallest.args[0]);
  Outcome largest = simplifyOne(t, [&](ir::Builder& b, ValueId x, ValueId y) {
    return b.op1(OpKind::Maximum, {x, y}, t);
  });
  EXPECT_FALSE(largest.changed);
}

TEST(Simplify, InfinitiesAreIdentitiesOfMaximumAndMinimum) {
  const Type t = f32({2});
  const double inf = std::numeric_limits<double>::infinity();
  Outcome max = simplifyOne(t, [&](ir::Builder& b, ValueId x, ValueId) {
    return b.op1(OpKind::Maximum, {splat(b, t, -inf), x}, t);
  });
  EXPECT_EQ(max.returned[0], max.args[0]);
  Outcome min = simplifyOne(t, [&](ir::Builder& b, ValueId x, ValueId) {
    return b.op1(OpKind::Minimum, {x, splat(b, t, inf)}, t);
  });
  EXPECT_EQ(min.returned[0], min.args[0]);
  Outcome saturating = simplifyOne(t, [&](ir::Builder& b, ValueId x, ValueId) {
    return b.op1(OpKind::Maximum, {x, splat(b, t, inf)}, t);
  });
  EXPECT_FALSE(saturating.changed);
}

TEST(Simplify, SelectOfTrueAndFalseIsThePredicate) {
  const Type p = pred({3});
  Outcome same = simplifyOne(p, [&](ir::Builder& b, ValueId x, ValueId) {
    return b.op1(OpKind::Select, {x, splat(b, p, 1), splat(b, p, 0)}, p);
  });
  EXPECT_EQ(same.returned[0], same.args[0]);
  // select(p, false, true) is not(p), not p.
  Outcome inverted = simplifyOne(p, [&](ir::Builder& b, ValueId x, ValueId) {
    return b.op1(OpKind::Select, {x, splat(b, p, 0), splat(b, p, 1)}, p);
  });
  EXPECT_FALSE(inverted.changed);
}

TEST(Simplify, SelfCompareFoldsForIntegersOnly) {
  // Scalar: compare(x, x, GE) -> constant true.
  Outcome scalar = simplifyOne(i32(), [&](ir::Builder& b, ValueId x, ValueId) {
    ValueId ge = b.op1(OpKind::Compare, {x, x}, pred(),
                       {{"comparison_direction", ir::ComparisonDirection::GE}});
    return b.op1(OpKind::Select, {ge, x, b.op1(OpKind::Negate, {x}, i32())}, i32());
  });
  EXPECT_TRUE(scalar.changed);
  // The select then saw a known-true predicate within the same walk.
  EXPECT_EQ(scalar.returned[0], scalar.args[0]);

  // Tensor: compare(x, x, NE) -> broadcast_in_dim of a false scalar.
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {i32({3})}, {pred({3})});
  b.ret({b.op1(OpKind::Compare, {a[0], a[0]}, pred({3}),
               {{"comparison_direction", ir::ComparisonDirection::NE}})});
  b.endFunction();
  EXPECT_TRUE(simplifyAlgebra(m));
  expectVerifies(m);
  const ir::Function& main = mainOf(m);
  ASSERT_EQ(
      kindsOf(main.body),
      (std::vector<OpKind>{OpKind::Constant, OpKind::BroadcastInDim, OpKind::Return}));
  EXPECT_EQ(*ir::findAttrAs<ir::DenseElements>(main.body.ops[0].attrs, "value"),
            ir::denseFromValues(pred(), {0}));

  // Floats: x == x is false for NaN, so nothing happens.
  Outcome floats = simplifyOne(f32(), [&](ir::Builder& b2, ValueId x, ValueId) {
    ValueId eq = b2.op1(OpKind::Compare, {x, x}, pred(),
                        {{"comparison_direction", ir::ComparisonDirection::EQ}});
    return b2.op1(OpKind::Select, {eq, x, x}, f32());
  });
  // Only select(p, x, x) applies; the compare stays.
  EXPECT_EQ(floats.returned[0], floats.args[0]);
  EXPECT_EQ(mainOf(floats.module).body.ops[0].kind, OpKind::Compare);
}

TEST(Simplify, ComplexTimesOneIsNotExactAndStays) {
  const Type t = tensor(ElementType::C64, {2});
  Outcome complex = simplifyOne(t, [&](ir::Builder& b, ValueId x, ValueId) {
    // (1 + 0i) twice, as (real, imag) pairs of f32 bits.
    ValueId one = b.constant(ir::denseFromBits(t, {0x3F800000, 0, 0x3F800000, 0}));
    return b.op1(OpKind::Multiply, {x, one}, t);
  });
  EXPECT_FALSE(complex.changed);
}

TEST(Simplify, PartsOfAComplexAreItsOperands) {
  const Type t = f32({3});
  const Type c = tensor(ElementType::C64, {3});
  for (OpKind part : {OpKind::Real, OpKind::Imag}) {
    Outcome out = simplifyOne(t, [&](ir::Builder& b, ValueId x, ValueId y) {
      return b.op1(part, {b.op1(OpKind::Complex, {x, y}, c)}, t);
    });
    EXPECT_TRUE(out.changed);
    EXPECT_EQ(out.returned, std::vector<ValueId>{out.args[part == OpKind::Real ? 0 : 1]});
  }
}

TEST(Simplify, RewritesInsideRegionsReachOuterValues) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {pred(), f32()}, {f32()});
  b.beginRegion({});
  ValueId twice = b.op1(OpKind::Negate, {b.op1(OpKind::Negate, {a[1]}, f32())}, f32());
  b.ret({twice});
  ir::Region then_branch = b.endRegion();
  b.beginRegion({});
  b.ret({a[1]});
  ir::Region else_branch = b.endRegion();
  b.ret({b.op1(OpKind::If, {a[0]}, f32(), {},
               {std::move(then_branch), std::move(else_branch)})});
  b.endFunction();
  EXPECT_TRUE(simplifyAlgebra(m));
  expectVerifies(m);
  const ir::Region& then_region = mainOf(m).body.ops[0].regions[0];
  // The inner negate stays for dce; the branch returns the argument itself.
  EXPECT_EQ(then_region.ops.back().operands[0], a[1]);
}

}  // namespace
}  // namespace jft::passes
