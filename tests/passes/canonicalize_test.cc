// canonicalize: no-op shape ops vanish, reshape/transpose chains shorten,
// tiny integer elementwise ops fold to constants; floats never fold.
#include "passes/canonicalize.h"

#include "pass_test_util.h"
#include "passes/literal_elements.h"

namespace jft::passes {
namespace {

using namespace testing;

// main(x: T) returns op(x) built by `make`; after canonicalize the function
// must return x itself, keeping no op but constants (left for dce).
template <typename Make>
void expectForwardsArgument(const Type& type, Make make) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {type}, {type});
  b.ret({make(b, a[0])});
  b.endFunction();
  EXPECT_TRUE(canonicalize(m));
  expectVerifies(m);
  EXPECT_EQ(returned(mainOf(m)), (std::vector<ValueId>{a[0]}));
  for (const ir::Op& op : mainOf(m).body.ops)
    EXPECT_TRUE(op.kind == OpKind::Constant || op.kind == OpKind::Return)
        << ir::opKindName(op.kind);
}

TEST(Canonicalize, OpsThatDoNothingAreReplacedByTheirOperand) {
  const Type t = f32({2, 3});
  expectForwardsArgument(
      t, [&](ir::Builder& b, ValueId x) { return b.op1(OpKind::Reshape, {x}, t); });
  expectForwardsArgument(t, [&](ir::Builder& b, ValueId x) {
    return b.op1(OpKind::Transpose, {x}, t, ints("permutation", {0, 1}));
  });
  expectForwardsArgument(t, [&](ir::Builder& b, ValueId x) {
    return b.op1(OpKind::BroadcastInDim, {x}, t, ints("broadcast_dimensions", {0, 1}));
  });
  expectForwardsArgument(
      t, [&](ir::Builder& b, ValueId x) { return b.op1(OpKind::Convert, {x}, t); });
  expectForwardsArgument(t, [&](ir::Builder& b, ValueId x) {
    return b.op1(OpKind::Slice, {x}, t,
                 {{"start_indices", std::vector<int64_t>{0, 0}},
                  {"limit_indices", std::vector<int64_t>{2, 3}},
                  {"strides", std::vector<int64_t>{1, 1}}});
  });
  expectForwardsArgument(t, [&](ir::Builder& b, ValueId x) {
    return b.op1(OpKind::Concatenate, {x}, t, {{"dimension", int64_t{0}}});
  });
  expectForwardsArgument(t, [&](ir::Builder& b, ValueId x) {
    ValueId zero = splat(b, f32(), 0.0);
    return b.op1(OpKind::Pad, {x, zero}, t,
                 {{"edge_padding_low", std::vector<int64_t>{0, 0}},
                  {"edge_padding_high", std::vector<int64_t>{0, 0}},
                  {"interior_padding", std::vector<int64_t>{0, 0}}});
  });
  expectForwardsArgument(t, [&](ir::Builder& b, ValueId x) {
    return b.op1(OpKind::Reverse, {x}, t, ints("dimensions", {}));
  });
}

TEST(Canonicalize, DimensionSizeIsTheStaticExtent) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({3, 7})}, {i32()});
  b.ret({b.op1(OpKind::GetDimensionSize, {a[0]}, i32(), {{"dimension", int64_t{1}}})});
  b.endFunction();
  EXPECT_TRUE(canonicalize(m));
  expectVerifies(m);
  const ir::Op& op = mainOf(m).body.ops.at(0);
  ASSERT_EQ(op.kind, OpKind::Constant);
  const auto* value = ir::findAttrAs<ir::DenseElements>(op.attrs, "value");
  ASSERT_NE(value, nullptr);
  EXPECT_EQ(value->type, i32());
  EXPECT_EQ(elementInteger(*value, 0), 7);
}

TEST(Canonicalize, TupleElementOfTupleIsTheElement) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({2}), i32()}, {i32()});
  ValueId pair = b.op1(OpKind::Tuple, {a[0], a[1]}, Type::makeTuple({f32({2}), i32()}));
  b.ret({b.op1(OpKind::GetTupleElement, {pair}, i32(), {{"index", int64_t{1}}})});
  b.endFunction();
  EXPECT_TRUE(canonicalize(m));
  expectVerifies(m);
  EXPECT_EQ(returned(mainOf(m)), (std::vector<ValueId>{a[1]}));
}

// Shape ops that move or drop elements must be left alone.
TEST(Canonicalize, OpsThatDoSomethingStay) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({2, 2}), f32({4})},
                           {f32({2, 2}), f32({2, 2}), f32({2, 2}), f32({2}), f32({4})});
  ValueId transposed =
      b.op1(OpKind::Transpose, {a[0]}, f32({2, 2}), ints("permutation", {1, 0}));
  ValueId reversed = b.op1(OpKind::Reverse, {a[0]}, f32({2, 2}), ints("dimensions", {1}));
  ValueId swapped = b.op1(OpKind::BroadcastInDim, {a[0]}, f32({2, 2}),
                          ints("broadcast_dimensions", {1, 0}));
  ValueId strided = b.op1(OpKind::Slice, {a[1]}, f32({2}),
                          {{"start_indices", std::vector<int64_t>{0}},
                           {"limit_indices", std::vector<int64_t>{4}},
                           {"strides", std::vector<int64_t>{2}}});
  ValueId rounded = b.op1(OpKind::Convert, {a[1]}, f32({4}));  // same type: goes
  b.ret({transposed, reversed, swapped, strided, rounded});
  b.endFunction();
  EXPECT_TRUE(canonicalize(m));
  expectVerifies(m);
  EXPECT_EQ(kindsOf(mainOf(m).body),
            (std::vector<OpKind>{OpKind::Transpose, OpKind::Reverse,
                                 OpKind::BroadcastInDim, OpKind::Slice, OpKind::Return}));
  EXPECT_EQ(returned(mainOf(m))[4], a[1]);
}

TEST(Canonicalize, ReshapeOfReshapeReadsTheSource) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({2, 6})}, {f32({3, 4}), f32({2, 6})});
  ValueId flat = b.op1(OpKind::Reshape, {a[0]}, f32({12}));
  ValueId square = b.op1(OpKind::Reshape, {flat}, f32({3, 4}));
  ValueId back = b.op1(OpKind::Reshape, {flat}, f32({2, 6}));  // round trip
  b.ret({square, back});
  b.endFunction();
  EXPECT_TRUE(canonicalize(m));
  expectVerifies(m);
  const ir::Function& main = mainOf(m);
  // %0 = reshape a (12, now unused); %1 = reshape a (3x4); return %1, a
  EXPECT_EQ(kindsOf(main.body),
            (std::vector<OpKind>{OpKind::Reshape, OpKind::Reshape, OpKind::Return}));
  EXPECT_EQ(main.body.ops[1].operands[0], a[0]);
  EXPECT_EQ(returned(main), (std::vector<ValueId>{square, a[0]}));
}

TEST(Canonicalize, TransposeOfTransposeComposes) {
  ir::Module m;
  ir::Builder b(m);
  // x: 2x3x4 --[1,2,0]--> 3x4x2 --[2,0,1]--> 2x3x4 (identity) and
  //            3x4x2 --[1,0,2]--> 4x3x2, which is x transposed by [2,1,0].
  auto a = b.beginFunction("main", {f32({2, 3, 4})}, {f32({2, 3, 4}), f32({4, 3, 2})});
  ValueId t1 =
      b.op1(OpKind::Transpose, {a[0]}, f32({3, 4, 2}), ints("permutation", {1, 2, 0}));
  ValueId back =
      b.op1(OpKind::Transpose, {t1}, f32({2, 3, 4}), ints("permutation", {2, 0, 1}));
  ValueId other =
      b.op1(OpKind::Transpose, {t1}, f32({4, 3, 2}), ints("permutation", {1, 0, 2}));
  b.ret({back, other});
  b.endFunction();
  EXPECT_TRUE(canonicalize(m));
  expectVerifies(m);
  const ir::Function& main = mainOf(m);
  EXPECT_EQ(returned(main)[0], a[0]);
  const ir::Op* composed = definer(main, returned(main)[1]);
  ASSERT_NE(composed, nullptr);
  EXPECT_EQ(composed->operands[0], a[0]);
  EXPECT_EQ(*ir::findAttrAs<std::vector<int64_t>>(composed->attrs, "permutation"),
            (std::vector<int64_t>{2, 1, 0}));
}

// JAX's softmax shape: 2x4x64 -[0,1,2]-> 2x4x64x1 -[0,1,2,3]-> 2x4x64x64 is
// one broadcast by [0,1,2]; a scalar broadcast twice stays one broadcast by [].
TEST(Canonicalize, BroadcastOfBroadcastComposes) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({2, 4, 64}), f32()},
                           {f32({2, 4, 64, 64}), f32({3, 4})});
  ValueId keep_dims = b.op1(OpKind::BroadcastInDim, {a[0]}, f32({2, 4, 64, 1}),
                            ints("broadcast_dimensions", {0, 1, 2}));
  ValueId wide = b.op1(OpKind::BroadcastInDim, {keep_dims}, f32({2, 4, 64, 64}),
                       ints("broadcast_dimensions", {0, 1, 2, 3}));
  ValueId row =
      b.op1(OpKind::BroadcastInDim, {a[1]}, f32({4}), ints("broadcast_dimensions", {}));
  ValueId grid = b.op1(OpKind::BroadcastInDim, {row}, f32({3, 4}),
                       ints("broadcast_dimensions", {1}));
  b.ret({wide, grid});
  b.endFunction();
  EXPECT_TRUE(canonicalize(m));
  expectVerifies(m);
  const ir::Function& main = mainOf(m);
  const ir::Op* first = definer(main, returned(main)[0]);
  EXPECT_EQ(first->operands[0], a[0]);
  EXPECT_EQ(*ir::findAttrAs<std::vector<int64_t>>(first->attrs, "broadcast_dimensions"),
            (std::vector<int64_t>{0, 1, 2}));
  const ir::Op* second = definer(main, returned(main)[1]);
  EXPECT_EQ(second->operands[0], a[1]);
  EXPECT_EQ(*ir::findAttrAs<std::vector<int64_t>>(second->attrs, "broadcast_dimensions"),
            (std::vector<int64_t>{}));
}

// Folds checked against numpy: np.int8(127) + np.int8(1) == -128,
// np.int32(-7) // 2 is -4 but StableHLO divides toward zero: -3 (np.fix),
// np.fmod(-7, 2) == -1, np.uint8(200) >> 3 == 25, (np.int32(-8) >> 1) == -4.
TEST(Canonicalize, TinyIntegerOpsFoldExactly) {
  struct Case {
    OpKind kind;
    ElementType element;
    std::vector<double> lhs, rhs;
    std::vector<int64_t> expected;
  };
  const std::vector<Case> cases = {
      {OpKind::Add, ElementType::I8, {127, -5}, {1, 3}, {-128, -2}},
      {OpKind::Subtract, ElementType::U8, {0, 10}, {1, 3}, {255, 7}},
      {OpKind::Multiply, ElementType::I32, {65536, -3}, {65536, 7}, {0, -21}},
      {OpKind::Divide, ElementType::I32, {-7, 7}, {2, -2}, {-3, -3}},
      {OpKind::Remainder, ElementType::I32, {-7, 7}, {2, -2}, {-1, 1}},
      {OpKind::ShiftRightLogical, ElementType::U8, {200, 1}, {3, 0}, {25, 1}},
      {OpKind::ShiftRightArithmetic, ElementType::I32, {-8, 8}, {1, 2}, {-4, 2}},
      {OpKind::ShiftLeft, ElementType::I8, {1, 3}, {7, 1}, {-128, 6}},
      {OpKind::Minimum, ElementType::U32, {1, 4294967295.0}, {2, 3}, {1, 3}},
      {OpKind::Maximum, ElementType::I64, {-1, 5}, {2, 3}, {2, 5}},
      {OpKind::Xor, ElementType::I32, {12, -1}, {10, 0}, {6, -1}},
  };
  for (const Case& c : cases) {
    ir::Module m;
    ir::Builder b(m);
    const Type t = tensor(c.element, {2});
    b.beginFunction("main", {}, {t});
    ValueId lhs = b.constant(ir::denseFromValues(t, c.lhs));
    ValueId rhs = b.constant(ir::denseFromValues(t, c.rhs));
    b.ret({b.op1(c.kind, {lhs, rhs}, t)});
    b.endFunction();
    SCOPED_TRACE(std::string(ir::opKindName(c.kind)));
    EXPECT_TRUE(canonicalize(m));
    expectVerifies(m);
    const ir::Op* folded = definer(mainOf(m), returned(mainOf(m))[0]);
    ASSERT_NE(folded, nullptr);
    ASSERT_EQ(folded->kind, OpKind::Constant);
    const auto* literal = ir::findAttrAs<ir::DenseElements>(folded->attrs, "value");
    ASSERT_NE(literal, nullptr);
    EXPECT_EQ(literal->type, t);
    for (size_t i = 0; i < c.expected.size(); ++i)
      EXPECT_EQ(elementInteger(*literal, static_cast<int64_t>(i)), c.expected[i]) << i;
  }
}

TEST(Canonicalize, CompareAndConvertFold) {
  ir::Module m;
  ir::Builder b(m);
  b.beginFunction("main", {}, {pred({3}), tensor(ElementType::U8, {3}), pred({3})});
  ValueId lhs = b.constant(ir::denseFromValues(i32({3}), {-1, 2, 3}));
  ValueId rhs = b.constant(ir::denseFromValues(i32({3}), {1, 2, 0}));
  ValueId less = b.op1(OpKind::Compare, {lhs, rhs}, pred({3}),
                       {{"comparison_direction", ir::ComparisonDirection::LT},
                        {"compare_type", ir::ComparisonType::SIGNED}});
  ValueId narrowed = b.op1(OpKind::Convert, {rhs}, tensor(ElementType::U8, {3}));
  ValueId truth = b.op1(OpKind::Convert, {lhs}, pred({3}));
  b.ret({less, narrowed, truth});
  b.endFunction();
  EXPECT_TRUE(canonicalize(m));
  expectVerifies(m);
  auto literalOf = [&](size_t result) {
    const ir::Op* op = definer(mainOf(m), returned(mainOf(m))[result]);
    EXPECT_EQ(op->kind, OpKind::Constant);
    return *ir::findAttrAs<ir::DenseElements>(op->attrs, "value");
  };
  EXPECT_EQ(literalOf(0).bytes, (std::vector<uint8_t>{1, 0, 0}));
  EXPECT_EQ(literalOf(1).bytes, (std::vector<uint8_t>{1, 2, 0}));
  EXPECT_EQ(literalOf(2).bytes, (std::vector<uint8_t>{1, 1, 1}));
}

TEST(Canonicalize, FoldsThroughBroadcastOfScalarConstant) {
  ir::Module m;
  ir::Builder b(m);
  b.beginFunction("main", {}, {i32({4})});
  ValueId two = b.constant(ir::denseFromValues(i32(), {2}));
  ValueId wide =
      b.op1(OpKind::BroadcastInDim, {two}, i32({4}), ints("broadcast_dimensions", {}));
  ValueId iota_like = b.constant(ir::denseFromValues(i32({4}), {0, 1, 2, 3}));
  b.ret({b.op1(OpKind::Multiply, {wide, iota_like}, i32({4}))});
  b.endFunction();
  EXPECT_TRUE(canonicalize(m));
  const ir::Op* folded = definer(mainOf(m), returned(mainOf(m))[0]);
  ASSERT_EQ(folded->kind, OpKind::Constant);
  EXPECT_EQ(*ir::findAttrAs<ir::DenseElements>(folded->attrs, "value"),
            ir::denseFromValues(i32({4}), {0, 2, 4, 6}));
}

TEST(Canonicalize, UnspecifiedOrLargeOrFloatCasesAreNotFolded) {
  ir::Module m;
  ir::Builder b(m);
  b.beginFunction("main", {}, {i32({2}), i32({2}), f32({2}), i32({100}), i8({1})});
  ValueId x = b.constant(ir::denseFromValues(i32({2}), {-2147483648.0, 5}));
  ValueId by_zero = b.constant(ir::denseFromValues(i32({2}), {1, 0}));
  ValueId by_minus_one = b.constant(ir::denseFromValues(i32({2}), {-1, 1}));
  ValueId div0 = b.op1(OpKind::Divide, {x, by_zero}, i32({2}));
  ValueId overflow = b.op1(OpKind::Divide, {x, by_minus_one}, i32({2}));
  ValueId fx = b.constant(ir::denseFromValues(f32({2}), {1.5, 2.5}));
  ValueId fsum = b.op1(OpKind::Add, {fx, fx}, f32({2}));
  ValueId big = b.constant(ir::denseFromValues(i32({100}), std::vector<double>(100, 1)));
  ValueId big_sum = b.op1(
      OpKind::Add,
      {big, b.constant(ir::denseFromValues(i32({100}), std::vector<double>(100, 2)))},
      i32({100}));
  ValueId wide = b.constant(ir::denseFromValues(i32({1}), {300}));
  ValueId narrowed = b.op1(OpKind::Convert, {wide}, i8({1}));
  b.ret({div0, overflow, fsum, big_sum, narrowed});
  b.endFunction();
  EXPECT_FALSE(canonicalize(m));
}

}  // namespace
}  // namespace jft::passes

namespace jft::passes {
namespace {

using namespace testing;

// dot_general(x: lhs, y: rhs) contracting lhs dim 1 with rhs dim 0.
const ir::Op& canonicalProduct(ir::Module& m, const Type& lhs, const Type& rhs,
                               const Type& result) {
  ir::Builder b(m);
  auto a = b.beginFunction("main", {lhs, rhs}, {result});
  ir::DotDimensionNumbers numbers;
  numbers.lhs_contracting_dims = {1};
  numbers.rhs_contracting_dims = {0};
  b.ret({b.op1(OpKind::DotGeneral, {a[0], a[1]}, result,
               {{"dot_dimension_numbers", numbers}})});
  b.endFunction();
  canonicalize(m);
  expectVerifies(m);
  return mainOf(m).body.ops.front();
}

// By the definition of the product, a sum over no terms is zero.
TEST(Canonicalize, AProductOverAnEmptyContractionIsZeros) {
  ir::Module m;
  const ir::Op& op = canonicalProduct(m, f32({3, 0}), f32({0, 2}), f32({3, 2}));
  ASSERT_EQ(op.kind, OpKind::Constant);
  const auto* value = ir::findAttrAs<ir::DenseElements>(op.attrs, "value");
  ASSERT_NE(value, nullptr);
  EXPECT_EQ(value->type, f32({3, 2}));
  EXPECT_EQ(value->expanded(), std::vector<uint8_t>(24, 0));
}

TEST(Canonicalize, AProductWithAnEmptyResultComputesNothing) {
  ir::Module m;
  EXPECT_EQ(canonicalProduct(m, f32({0, 4}), f32({4, 2}), f32({0, 2})).kind,
            OpKind::Constant);
}

TEST(Canonicalize, AProductOfNonEmptyOperandsStays) {
  ir::Module m;
  EXPECT_EQ(canonicalProduct(m, f32({3, 4}), f32({4, 2}), f32({3, 2})).kind,
            OpKind::DotGeneral);
}

// lax.empty: custom_call @AllocateBuffer() has unspecified contents; it
// becomes zeros (one valid content). Other operand-less calls stay.
TEST(Canonicalize, AllocateBufferIsAZeroConstant) {
  for (const char* target : {"AllocateBuffer", "SomethingElse"}) {
    ir::Module m;
    ir::Builder b(m);
    b.beginFunction("main", {}, {i32({2, 3})});
    b.ret({b.op1(OpKind::CustomCall, {}, i32({2, 3}),
                 {{"call_target_name", std::string(target)}})});
    b.endFunction();
    canonicalize(m);
    expectVerifies(m);
    const ir::Op& op = mainOf(m).body.ops.front();
    if (std::string(target) == "AllocateBuffer") {
      ASSERT_EQ(op.kind, OpKind::Constant);
      EXPECT_EQ(ir::findAttrAs<ir::DenseElements>(op.attrs, "value")->expanded(),
                std::vector<uint8_t>(24, 0));
    } else {
      EXPECT_EQ(op.kind, OpKind::CustomCall);
    }
  }
}

}  // namespace
}  // namespace jft::passes
