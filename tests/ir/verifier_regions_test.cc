// Ops with regions (reduce, sort, while, if, case) and cross-function and
// tuple ops (call, return, tuple, get_tuple_element).
#include "verifier_test_util.h"

namespace jft::ir {
namespace {

using namespace jft::ir::testing;
using Ints = std::vector<int64_t>;

BodyFn sumRows(Type out, std::vector<Type> body_args = {f32(), f32()}) {
  return [=](Builder& b, const std::vector<ValueId>& args) -> std::vector<ValueId> {
    Region body = combiner(b, body_args, OpKind::Add);
    return {
        b.op1(OpKind::Reduce, args, out, {{"dimensions", Ints{1}}}, {std::move(body)})};
  };
}

TEST(VerifyReduce, SumOverOneDimension) {
  EXPECT_VALID(verifyMain({f32({8, 100}), f32()}, sumRows(f32({8}))));
}

TEST(VerifyReduce, ResultDropsTheReducedDimensions) {
  EXPECT_INVALID(verifyMain({f32({8, 100}), f32()}, sumRows(f32({100}))),
                 "stablehlo.reduce at zoo.py:17:20: result #0 tensor<100xf32> should be "
                 "tensor<8xf32>");
}

TEST(VerifyReduce, InitValueIsAScalarOfTheInputType) {
  EXPECT_INVALID(
      verifyMain({f32({8, 100}), f32({8})}, sumRows(f32({8}))),
      "init value #0 tensor<8xf32> must be a 0-d tensor of the input's element type");
}

TEST(VerifyReduce, BodyTypesFollowTheInputs) {
  EXPECT_INVALID(verifyMain({f32({8, 100}), f32()}, sumRows(f32({8}), {i32(), i32()})),
                 "input element type f32 cannot be promoted to body type i32");
  // is_promotable (C6): the body may accumulate in a wider type of the same
  // kind, and the results take the body's type (C8).
  EXPECT_VALID(verifyMain({f32({8, 100}), f32()}, sumRows(f64({8}), {f64(), f64()})));
  EXPECT_INVALID(verifyMain({f32({8, 100}), f32()},
                            sumRows(f32({8}), {tensorOf(ElementType::F16, {}),
                                               tensorOf(ElementType::F16, {})})),
                 "input element type f32 cannot be promoted to body type f16");
}

TEST(VerifyReduce, BodyReturnsOneValuePerInput) {
  EXPECT_INVALID(verifyMain({f32({8, 100}), f32()},
                            [](Builder& b, const std::vector<ValueId>& args) {
                              auto body_args = b.beginRegion({f32(), f32()});
                              b.ret({body_args[0], body_args[1]});
                              Region body = b.endRegion();
                              return std::vector<ValueId>{
                                  b.op1(OpKind::Reduce, args, f32({8}),
                                        {{"dimensions", Ints{1}}}, {std::move(body)})};
                            }),
                 "body returns (tensor<f32>, tensor<f32>), expected (tensor<f32>)");
}

TEST(VerifyReduce, VariadicArgmaxShape) {
  // Two inputs reduced together, as jnp.argmax lowers.
  EXPECT_VALID(verifyMain(
      {f32({8, 100}), i32({8, 100}), f32(), i32()},
      [](Builder& b, const std::vector<ValueId>& args) {
        Region body = combiner(b, {f32(), i32(), f32(), i32()}, OpKind::Maximum);
        return b.op(OpKind::Reduce, args, {f32({8}), i32({8})}, {{"dimensions", Ints{1}}},
                    {std::move(body)});
      }));
  EXPECT_INVALID(
      verifyMain(
          {f32({8, 100}), i32({8, 50}), f32(), i32()},
          [](Builder& b, const std::vector<ValueId>& args) {
            Region body = combiner(b, {f32(), i32(), f32(), i32()}, OpKind::Maximum);
            return b.op(OpKind::Reduce, args, {f32({8}), i32({8})},
                        {{"dimensions", Ints{1}}}, {std::move(body)});
          }),
      "input shapes differ: tensor<8x100xf32> vs tensor<8x50xi32>");
}

BodyFn sortPairs(Type comparator_result, int64_t dimension = 0) {
  return [=](Builder& b, const std::vector<ValueId>& args) {
    auto cmp = b.beginRegion({f32(), f32(), i32(), i32()});
    ValueId less = b.op1(OpKind::Compare, {cmp[0], cmp[1]}, comparator_result,
                         {{"comparison_direction", ComparisonDirection::LT}});
    b.ret({less});
    Region comparator = b.endRegion();
    return b.op(OpKind::Sort, args, {f32({4}), i32({4})},
                {{"dimension", dimension}, {"is_stable", true}}, {std::move(comparator)});
  };
}

TEST(VerifySort, ComparatorTakesTwoScalarsPerInput) {
  EXPECT_VALID(verifyMain({f32({4}), i32({4})}, sortPairs(pred())));
  EXPECT_INVALID(verifyMain({f32({4}), i32({4})}, sortPairs(pred(), 1)),
                 "stablehlo.sort at zoo.py:17:20: dimension 1 outside [-1, 1)");
}

TEST(VerifySort, ResultsMatchInputs) {
  EXPECT_INVALID(verifyMain({f32({4}), f32({4})}, sortPairs(pred())),
                 "result types (tensor<4xf32>, tensor<4xi32>) differ from input types "
                 "(tensor<4xf32>, tensor<4xf32>)");
}

BodyFn countdown(Type cond_result, bool body_swaps) {
  return [=](Builder& b, const std::vector<ValueId>& args) {
    auto cond_args = b.beginRegion({i32(), f32({3})});
    ValueId zero = b.constant(denseFromValues(i32(), {0}));
    ValueId more = b.op1(OpKind::Compare, {cond_args[0], zero}, cond_result,
                         {{"comparison_direction", ComparisonDirection::GT}});
    b.ret({more});
    Region cond = b.endRegion();
    auto body_args = b.beginRegion({i32(), f32({3})});
    ValueId one = b.constant(denseFromValues(i32(), {1}));
    ValueId next = b.op1(OpKind::Subtract, {body_args[0], one}, i32());
    if (body_swaps) {
      b.ret({body_args[1], next});
    } else {
      b.ret({next, body_args[1]});
    }
    Region body = b.endRegion();
    return b.op(OpKind::While, args, {i32(), f32({3})}, {},
                {std::move(cond), std::move(body)});
  };
}

TEST(VerifyWhile, CondAndBodySignatures) {
  EXPECT_VALID(verifyMain({i32(), f32({3})}, countdown(pred(), false)));
  EXPECT_INVALID(
      verifyMain({i32(), f32({3})}, countdown(pred(), true)),
      "stablehlo.while at zoo.py:17:20: body returns (tensor<3xf32>, tensor<i32>), "
      "expected (tensor<i32>, tensor<3xf32>)");
  EXPECT_INVALID(verifyMain({i32(), f32({3})}, countdown(pred({1}), false)),
                 "cond returns (tensor<1xi1>), expected (tensor<i1>)");
}

BodyFn branches(OpKind kind, Type second_branch_result) {
  return [=](Builder& b, const std::vector<ValueId>& args) {
    std::vector<Region> regions;
    b.beginRegion({});
    b.ret({b.constant(denseFromValues(f32({2}), {1, 2}))});
    regions.push_back(b.endRegion());
    b.beginRegion({});
    b.ret({b.op1(OpKind::Iota, {}, second_branch_result,
                 {{"iota_dimension", int64_t{0}}})});
    regions.push_back(b.endRegion());
    return b.op(kind, {args[0]}, {f32({2})}, {}, std::move(regions));
  };
}

TEST(VerifyIf, BranchesReturnTheResultTypes) {
  EXPECT_VALID(verifyMain({pred()}, branches(OpKind::If, f32({2}))));
  EXPECT_INVALID(
      verifyMain({pred()}, branches(OpKind::If, i32({2}))),
      "stablehlo.if at zoo.py:17:20: branch #1 returns (tensor<2xi32>), expected "
      "(tensor<2xf32>)");
  EXPECT_INVALID(verifyMain({pred({1})}, branches(OpKind::If, f32({2}))),
                 "predicate must be a 0-d tensor of i1, got tensor<1xi1>");
}

TEST(VerifyCase, IndexIsAnI32Scalar) {
  EXPECT_VALID(verifyMain({i32()}, branches(OpKind::Case, f32({2}))));
  EXPECT_INVALID(verifyMain({i64()}, branches(OpKind::Case, f32({2}))),
                 "index must be a 0-d tensor of i32, got tensor<i64>");
  EXPECT_INVALID(verifyMain({i32()}, branches(OpKind::Case, f32({3}))),
                 "branch #1 returns (tensor<3xf32>), expected (tensor<2xf32>)");
}

Module withCallee(Type call_arg, Type call_result, std::string callee = "double") {
  Module m;
  Builder b(m);
  b.setLoc(b.fileLoc("zoo.py", 17, 20));
  auto args = b.beginFunction("double", {f32({4})}, {f32({4})}, /*is_public=*/false);
  b.ret({b.op1(OpKind::Add, {args[0], args[0]}, f32({4}))});
  b.endFunction();
  auto main_args = b.beginFunction("main", {call_arg}, {call_result});
  b.ret({b.op1(OpKind::Call, {main_args[0]}, call_result,
               {{"callee", SymbolRef{callee}}})});
  b.endFunction();
  return m;
}

TEST(VerifyCall, CalleeExistsAndTypesMatch) {
  EXPECT_VALID(verifyModule(withCallee(f32({4}), f32({4}))));
  EXPECT_INVALID(verifyModule(withCallee(f32({4}), f32({4}), "triple")),
                 "func.call at zoo.py:17:20: callee @triple does not exist");
  EXPECT_INVALID(verifyModule(withCallee(i32({4}), f32({4}))),
                 "operand types (tensor<4xi32>) do not match @double arguments "
                 "(tensor<4xf32>)");
  EXPECT_INVALID(
      verifyModule(withCallee(f32({4}), f32({5}))),
      "result types (tensor<5xf32>) do not match @double results (tensor<4xf32>)");
}

TEST(VerifyReturn, MatchesTheFunctionResults) {
  Module m = buildMain({f32({4})}, [](Builder&, const std::vector<ValueId>& args) {
    return std::vector<ValueId>{args[0]};
  });
  EXPECT_VALID(verifyModule(m));
  m.functions[0].result_types = {i32({4})};
  EXPECT_INVALID(
      verifyModule(m),
      "func.return at zoo.py:17:20: returns (tensor<4xf32>) but @main declares "
      "(tensor<4xi32>)");
}

TEST(VerifyTuple, TupleAndGetTupleElement) {
  const Type pair = Type::makeTuple({f32({2}), i32()});
  auto body = [&](int64_t index, Type element, Type tuple_type) -> BodyFn {
    return [=](Builder& b, const std::vector<ValueId>& args) {
      ValueId tuple = b.op1(OpKind::Tuple, args, tuple_type);
      return std::vector<ValueId>{
          b.op1(OpKind::GetTupleElement, {tuple}, element, {{"index", index}})};
    };
  };
  EXPECT_VALID(verifyMain({f32({2}), i32()}, body(1, i32(), pair)));
  EXPECT_INVALID(verifyMain({f32({2}), i32()}, body(2, i32(), pair)),
                 "stablehlo.get_tuple_element at zoo.py:17:20: index 2 outside "
                 "tuple<tensor<2xf32>, tensor<i32>>");
  EXPECT_INVALID(verifyMain({f32({2}), i32()}, body(0, i32(), pair)),
                 "result type tensor<i32> should be tensor<2xf32>");
  EXPECT_INVALID(
      verifyMain({f32({2}), i32()}, body(0, f32({2}), Type::makeTuple({f32({2})}))),
      "stablehlo.tuple at zoo.py:17:20: result type tuple<tensor<2xf32>> should be "
      "tuple<tensor<2xf32>, tensor<i32>>");
}

}  // namespace
}  // namespace jft::ir
