// composite, custom_call, optimization_barrier, after_all, get_dimension_size
// and map.
#include "verifier_test_util.h"

namespace jft::ir {
namespace {

using namespace jft::ir::testing;
using Ints = std::vector<int64_t>;

// @main calls composite "chlo.top_k" whose decomposition is @top_k.impl.
Module withComposite(Type input, std::vector<Type> results) {
  Module m;
  Builder b(m);
  b.setLoc(b.fileLoc("zoo.py", 17, 20));
  auto args = b.beginFunction("top_k.impl", {f32({8})}, {f32({2}), i32({2})}, false);
  ValueId values = b.op1(
      OpKind::Slice, {args[0]}, f32({2}),
      {{"start_indices", Ints{0}}, {"limit_indices", Ints{2}}, {"strides", Ints{1}}});
  ValueId indices = b.op1(OpKind::Iota, {}, i32({2}), {{"iota_dimension", int64_t{0}}});
  b.ret({values, indices});
  b.endFunction();
  auto main_args = b.beginFunction("main", {input}, results);
  b.ret(b.op(OpKind::Composite, {main_args[0]}, results,
             {{"name", std::string("chlo.top_k")},
              {"decomposition", SymbolRef{"top_k.impl"}},
              {"version", int64_t{1}}}));
  b.endFunction();
  return m;
}

TEST(VerifyComposite, MatchesItsDecomposition) {
  EXPECT_VALID(verifyModule(withComposite(f32({8}), {f32({2}), i32({2})})));
  EXPECT_INVALID(
      verifyModule(withComposite(f32({9}), {f32({2}), i32({2})})),
      "stablehlo.composite at zoo.py:17:20: operand types (tensor<9xf32>) do not "
      "match @top_k.impl arguments (tensor<8xf32>)");
  EXPECT_INVALID(verifyModule(withComposite(f32({8}), {f32({2})})),
                 "result types (tensor<2xf32>) do not match @top_k.impl results");
}

TEST(VerifyOptimizationBarrier, IsAnIdentityOnTypes) {
  auto barrier = [](std::vector<Type> results) -> BodyFn {
    return [=](Builder& b, const std::vector<ValueId>& args) {
      return b.op(OpKind::OptimizationBarrier, args, results);
    };
  };
  EXPECT_VALID(verifyMain({f32({2}), i32()}, barrier({f32({2}), i32()})));
  EXPECT_INVALID(verifyMain({f32({2}), i32()}, barrier({i32(), f32({2})})),
                 "result types (tensor<i32>, tensor<2xf32>) differ from operand types "
                 "(tensor<2xf32>, tensor<i32>)");
}

TEST(VerifyAfterAll, JoinsTokens) {
  EXPECT_VALID(
      verifyMain({Type::token(), Type::token()}, oneOp(OpKind::AfterAll, Type::token())));
  EXPECT_INVALID(
      verifyMain({Type::token(), f32()}, oneOp(OpKind::AfterAll, Type::token())),
      "operand #1 must be a token, got tensor<f32>");
}

TEST(VerifyGetDimensionSize, DimensionInRange) {
  EXPECT_VALID(verifyMain({f32({3, 4})}, oneOp(OpKind::GetDimensionSize, i32(),
                                               {{"dimension", int64_t{1}}})));
  EXPECT_INVALID(verifyMain({f32({3, 4})}, oneOp(OpKind::GetDimensionSize, i32(),
                                                 {{"dimension", int64_t{2}}})),
                 "dimension 2 outside [0, 2)");
}

BodyFn mapAdd(Ints dims, Type out) {
  return [=](Builder& b, const std::vector<ValueId>& args) {
    auto scalars = b.beginRegion({f32(), f32()});
    b.ret({b.op1(OpKind::Add, {scalars[0], scalars[1]}, f32())});
    Region computation = b.endRegion();
    return std::vector<ValueId>{
        b.op1(OpKind::Map, args, out, {{"dimensions", dims}}, {std::move(computation)})};
  };
}

TEST(VerifyMap, ComputationOnScalarsOverEveryDimension) {
  EXPECT_VALID(verifyMain({f32({2, 3}), f32({2, 3})}, mapAdd({0, 1}, f32({2, 3}))));
  EXPECT_INVALID(
      verifyMain({f32({2, 3}), f32({2, 3})}, mapAdd({1, 0}, f32({2, 3}))),
      "stablehlo.map at zoo.py:17:20: dimensions [1, 0] must be every dimension "
      "in order");
  EXPECT_INVALID(verifyMain({f32({2, 3}), f32({2, 3})}, mapAdd({0, 1}, i32({2, 3}))),
                 "computation returns (tensor<f32>), expected (tensor<i32>)");
}

// The zoo's linalg: cusolver_getrf_ffi factors its operand in place.
BodyFn getrf(int64_t output_index, int64_t operand_index) {
  return [=](Builder& b, const std::vector<ValueId>& args) {
    OutputOperandAlias alias;
    alias.output_tuple_indices = {output_index};
    alias.operand_index = operand_index;
    return b.op(OpKind::CustomCall, args, {f32({32, 32}), i32({32}), i32()},
                {{"call_target_name", std::string("cusolver_getrf_ffi")},
                 {"output_operand_aliases", std::vector<OutputOperandAlias>{alias}}});
  };
}

TEST(VerifyCustomCall, AliasesJoinValuesOfOneType) {
  EXPECT_VALID(verifyMain({f32({32, 32})}, getrf(0, 0)));
  EXPECT_INVALID(verifyMain({f32({32, 32})}, getrf(1, 0)),
                 "stablehlo.custom_call at zoo.py:17:20: output_operand_aliases joins "
                 "tensor<32xi32> and tensor<32x32xf32> (types must be equal)");
  EXPECT_INVALID(verifyMain({f32({32, 32})}, getrf(0, 1)),
                 "output_operand_aliases names operand 1 of 1");
  EXPECT_INVALID(verifyMain({f32({32, 32})}, getrf(3, 0)),
                 "output_operand_aliases has tuple indices out of range");
}

TEST(VerifyCustomCall, CalledComputationsExist) {
  EXPECT_INVALID(
      verifyMain({f32({2})},
                 oneOp(OpKind::CustomCall, f32({2}),
                       {{"call_target_name", std::string("f")},
                        {"called_computations", AttrList{SymbolRef{"missing"}}}})),
      "called computation @missing does not exist");
}

}  // namespace
}  // namespace jft::ir
