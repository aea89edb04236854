// Printer goldens: each expected text is written by hand from StableHLO's
// syntax (see the zoo's program.mlir files) and the scheme in ir/printer.h.
#include "ir/printer.h"

#include <gtest/gtest.h>

#include "ir/builder.h"
#include "verifier_test_util.h"

namespace jft::ir {
namespace {

using testing::f32;
using testing::i32;
using testing::pred;

TEST(Printer, SmokeModule) {
  Module m;
  m.name = "jit_smoke";
  m.attrs = {{"mhlo.num_replicas", int64_t{1}}, {"mhlo.num_partitions", int64_t{1}}};
  Builder b(m);
  auto args = b.beginFunction("main", {f32({256})}, {f32({256})});
  ValueId scale = b.constant(denseFromValues(f32({}), {1.25}));
  ValueId wide = b.op1(OpKind::BroadcastInDim, {scale}, f32({256}),
                       {{"broadcast_dimensions", std::vector<int64_t>{}}});
  ValueId product = b.op1(OpKind::Multiply, {args[0], wide}, f32({256}));
  ValueId result = b.op1(OpKind::Tanh, {product}, f32({256}));
  b.ret({result});
  b.endFunction().result_attrs[0] = {{"jax.result_info", std::string("result")}};

  EXPECT_EQ(
      printModule(m),
      "module @jit_smoke attributes {mhlo.num_partitions = 1, mhlo.num_replicas = 1} {\n"
      "  func.func public @main(%arg0: tensor<256xf32>) -> (tensor<256xf32> "
      "{jax.result_info = \"result\"}) {\n"
      "    %0 = stablehlo.constant dense<1.25> : tensor<f32>\n"
      "    %1 = stablehlo.broadcast_in_dim %0 {broadcast_dimensions = array<i64>} : "
      "(tensor<f32>) -> tensor<256xf32>\n"
      "    %2 = stablehlo.multiply %arg0, %1 : tensor<256xf32>\n"
      "    %3 = stablehlo.tanh %2 : tensor<256xf32>\n"
      "    return %3 : tensor<256xf32>\n"
      "  }\n"
      "}\n");
}

TEST(Printer, RegionsMultiResultsAndCalls) {
  Module m;
  Builder b(m);
  auto helper_args =
      b.beginFunction("helper", {f32({4})}, {f32({4})}, /*is_public=*/false);
  b.ret({helper_args[0]});
  b.endFunction();

  auto args = b.beginFunction("main", {f32({4}), i32({4})}, {f32({4}), i32({4})});
  auto cmp = b.beginRegion({f32({}), f32({}), i32({}), i32({})});
  ValueId less = b.op1(OpKind::Compare, {cmp[0], cmp[1]}, pred({}),
                       {{"comparison_direction", ComparisonDirection::LT}});
  b.ret({less});
  Region comparator = b.endRegion();
  auto sorted =
      b.op(OpKind::Sort, {args[0], args[1]}, {f32({4}), i32({4})},
           {{"is_stable", true}, {"dimension", int64_t{0}}}, {std::move(comparator)});
  ValueId called =
      b.op1(OpKind::Call, {sorted[0]}, f32({4}), {{"callee", SymbolRef{"helper"}}});
  b.ret({called, sorted[1]});
  b.endFunction();

  EXPECT_EQ(
      printModule(m),
      "module {\n"
      "  func.func private @helper(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n"
      "    return %arg0 : tensor<4xf32>\n"
      "  }\n"
      "  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xi32>) -> "
      "(tensor<4xf32>, tensor<4xi32>) {\n"
      "    %0:2 = stablehlo.sort %arg0, %arg1 {dimension = 0, is_stable = true} ({\n"
      "    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>, %arg4: tensor<i32>, "
      "%arg5: tensor<i32>):\n"
      "      %1 = stablehlo.compare %arg2, %arg3 {comparison_direction = "
      "#stablehlo<comparison_direction LT>} : (tensor<f32>, tensor<f32>) -> "
      "tensor<i1>\n"
      "      stablehlo.return %1 : tensor<i1>\n"
      "    }) : (tensor<4xf32>, tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>)\n"
      "    %2 = call @helper(%0#0) : tensor<4xf32>\n"
      "    return %2, %0#1 : tensor<4xf32>, tensor<4xi32>\n"
      "  }\n"
      "}\n");
}

TEST(Printer, LocationsWhenAsked) {
  Module m;
  Builder b(m);
  b.setLoc(b.fileLoc("zoo.py", 17, 20));
  auto args = b.beginFunction("main", {f32({2})}, {f32({2})});
  ValueId negated = b.op1(OpKind::Negate, {args[0]}, f32({2}));
  b.ret({negated});
  const Function& fn = b.endFunction();
  PrintOptions options;
  options.print_locations = true;
  EXPECT_EQ(printFunction(m, fn, options),
            "func.func public @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {\n"
            "  %0 = stablehlo.negate %arg0 : tensor<2xf32> loc(\"zoo.py\":17:20)\n"
            "  return %0 : tensor<2xf32> loc(\"zoo.py\":17:20)\n"
            "} loc(\"zoo.py\":17:20)\n");
  EXPECT_EQ(printOp(m, fn.body.ops[0], {}, &fn),
            "%0 = stablehlo.negate %arg0 : tensor<2xf32>\n");
  EXPECT_EQ(printOp(m, fn.body.ops[0]), "%v1 = stablehlo.negate %v0 : tensor<2xf32>\n");
}

TEST(Printer, TwoRegionsAndElidedConstants) {
  Module m;
  Builder b(m);
  auto args = b.beginFunction("main", {i32({})}, {i32({})});
  auto cond_args = b.beginRegion({i32({})});
  ValueId zero = b.constant(denseFromValues(i32({}), {0}));
  ValueId more = b.op1(OpKind::Compare, {cond_args[0], zero}, pred({}),
                       {{"comparison_direction", ComparisonDirection::GT}});
  b.ret({more});
  Region cond = b.endRegion();
  auto body_args = b.beginRegion({i32({})});
  ValueId one = b.constant(denseFromValues(i32({}), {1}));
  ValueId next = b.op1(OpKind::Subtract, {body_args[0], one}, i32({}));
  b.ret({next});
  Region body = b.endRegion();
  ValueId loop =
      b.op1(OpKind::While, {args[0]}, i32({}), {}, {std::move(cond), std::move(body)});
  ValueId table = b.constant(denseFromValues(f32({3}), {1, 2, 3}));
  b.ret({loop});
  b.endFunction();
  (void)table;
  PrintOptions options;
  options.max_dense_elements = 2;
  EXPECT_EQ(
      printFunction(m, m.functions[0], options),
      "func.func public @main(%arg0: tensor<i32>) -> tensor<i32> {\n"
      "  %0 = stablehlo.while %arg0 ({\n"
      "  ^bb0(%arg1: tensor<i32>):\n"
      "    %1 = stablehlo.constant dense<0> : tensor<i32>\n"
      "    %2 = stablehlo.compare %arg1, %1 {comparison_direction = "
      "#stablehlo<comparison_direction GT>} : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
      "    stablehlo.return %2 : tensor<i1>\n"
      "  }, {\n"
      "  ^bb0(%arg2: tensor<i32>):\n"
      "    %3 = stablehlo.constant dense<1> : tensor<i32>\n"
      "    %4 = stablehlo.subtract %arg2, %3 : tensor<i32>\n"
      "    stablehlo.return %4 : tensor<i32>\n"
      "  }) : tensor<i32>\n"
      "  %5 = stablehlo.constant dense<...> (3 elements) : tensor<3xf32>\n"
      "  return %0 : tensor<i32>\n"
      "}\n");
}

TEST(Printer, FullLocations) {
  Module m;
  Builder b(m);
  const LocId file = b.fileLoc("zoo.py", 17, 20);
  b.setLoc(
      m.locations.add(Location{Location::Kind::Name, "jit(f)/neg", 0, 0, 0, 0, {file}}));
  auto args = b.beginFunction("main", {f32({2})}, {f32({2})});
  ValueId negated = b.op1(OpKind::Negate, {args[0]}, f32({2}));
  b.ret({negated});
  const Function& fn = b.endFunction();
  PrintOptions options;
  options.print_locations = true;
  EXPECT_EQ(printOp(m, fn.body.ops[0], options, &fn),
            "%0 = stablehlo.negate %arg0 : tensor<2xf32> loc(\"zoo.py\":17:20)\n");
  options.full_locations = true;
  EXPECT_EQ(printOp(m, fn.body.ops[0], options, &fn),
            "%0 = stablehlo.negate %arg0 : tensor<2xf32> "
            "loc(\"jit(f)/neg\"(\"zoo.py\":17:20))\n");
}

}  // namespace
}  // namespace jft::ir
