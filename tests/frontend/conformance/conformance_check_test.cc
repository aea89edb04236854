// Tests of the comparison itself, on modules built by hand from a reading of
// the fixture text: an exact rebuild must pass, and each planted defect must
// be reported (all of them, not only the first).
#include "conformance_check.h"

#include <gtest/gtest.h>

#include "fixture_paths.h"
#include "ir/builder.h"

namespace jft::conformance {
namespace {

using ir::OpKind;
using ir::Type;

const Type kScalar = Type::scalar(ir::ElementType::F32);
const Type kVector = Type::tensor(ir::ElementType::F32, {256});

// tests/fixtures/zoo/smoke/artifact.generic.mlir, rebuilt op by op.
ir::Module buildSmoke() {
  ir::Module m;
  m.name = "jit_smoke";
  ir::Builder b(m);
  std::vector<ir::ValueId> args = b.beginFunction("main", {kVector}, {kVector});
  ir::LocId script = b.fileLoc("dump_fixtures.py", 31, 14);
  b.setLoc(script);
  ir::ValueId half = b.constant(ir::denseFromValues(kScalar, {0.5}));
  ir::ValueId scale = b.constant(ir::denseFromValues(kScalar, {1.25}));
  ir::NamedAttrs scalar_dims = {{"broadcast_dimensions", std::vector<int64_t>{}}};
  b.setLoc(b.fileLoc("zoo.py", 17, 20));
  ir::ValueId scale_b = b.op1(OpKind::BroadcastInDim, {scale}, kVector, scalar_dims);
  ir::ValueId product = b.op1(OpKind::Multiply, {args[0], scale_b}, kVector);
  ir::ValueId half_b = b.op1(OpKind::BroadcastInDim, {half}, kVector, scalar_dims);
  ir::ValueId sum = b.op1(OpKind::Add, {product, half_b}, kVector);
  b.setLoc(b.fileLoc("zoo.py", 17, 11));
  ir::ValueId result = b.op1(OpKind::Tanh, {sum}, kVector);
  b.setLoc(script);
  b.ret({result});
  b.endFunction();
  m.functions[0].result_attrs = {{{"jax.result_info", std::string("result")}}};
  m.attrs = {{"mhlo.num_partitions", int64_t{1}}, {"mhlo.num_replicas", int64_t{1}}};
  return m;
}

TextModule readFixture(const std::string& file) {
  StatusOr<TextModule> m = readGenericFile(fixturePath("smoke", file));
  EXPECT_TRUE(m.isOk()) << m.status().toString();
  return m.isOk() ? std::move(m).value() : TextModule{};
}

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const std::string& l : lines) s += l + "\n";
  return s;
}

bool mentions(const std::vector<std::string>& lines, std::string_view a,
              std::string_view b = "") {
  for (const std::string& l : lines)
    if (l.find(a) != std::string::npos && l.find(b) != std::string::npos) return true;
  return false;
}

std::vector<ir::Op>& mainOps(ir::Module& m) {
  return m.functions[0].body.ops;
}

TEST(StrictCompare, ExactRebuildOfSmokeHasNoMismatch) {
  ir::Module m = buildSmoke();
  std::vector<std::string> problems =
      compareStrict(readFixture("artifact.generic.mlir"), m);
  EXPECT_TRUE(problems.empty()) << joined(problems);
}

TEST(StrictCompare, ReportsEveryPlantedDefect) {
  ir::Module m = buildSmoke();
  std::vector<ir::Op>& ops = mainOps(m);
  std::swap(ops[3].operands[0], ops[3].operands[1]);                           // multiply
  ops[1].attrs[0].second = ir::denseFromValues(kScalar, {1.5});                // 1.25
  ops[6].loc = m.locations.add({ir::Location::Kind::File, "zoo.py", 18, 11});  // tanh
  ops[2].attrs[0].second = std::vector<int64_t>{0};  // broadcast dims
  m.functions[0].is_public = false;
  m.functions[0].result_attrs[0][0].second = std::string("out");
  m.attrs.pop_back();
  std::vector<std::string> problems =
      compareStrict(readFixture("artifact.generic.mlir"), m);
  EXPECT_TRUE(mentions(problems, "stablehlo.multiply", "operand 0 (%arg0)"))
      << joined(problems);
  EXPECT_TRUE(mentions(problems, "stablehlo.multiply", "operand 1 (%2)"))
      << joined(problems);
  EXPECT_TRUE(mentions(problems, "property value", "1.250000e+00")) << joined(problems);
  EXPECT_TRUE(
      mentions(problems, "stablehlo.tanh", "zoo.py:17:11 in the text, zoo.py:18:11"))
      << joined(problems);
  EXPECT_TRUE(mentions(problems, "broadcast_dimensions", "import has [0]"))
      << joined(problems);
  EXPECT_TRUE(mentions(problems, "@main", "text says public")) << joined(problems);
  EXPECT_TRUE(mentions(problems, "@main result 0: jax.result_info", "\"result\""))
      << joined(problems);
  EXPECT_TRUE(mentions(problems, "module attribute mhlo.num_replicas missing"))
      << joined(problems);
  EXPECT_EQ(problems.size(), 8u) << joined(problems);
}

TEST(StrictCompare, ReportsTypesCountsAndMissingFunctions) {
  ir::Module m = buildSmoke();
  m.name = "jit_other";
  mainOps(m).erase(mainOps(m).begin() + 6);  // drop tanh
  std::vector<std::string> problems =
      compareStrict(readFixture("artifact.generic.mlir"), m);
  EXPECT_TRUE(mentions(problems, "module name", "jit_smoke")) << joined(problems);
  EXPECT_TRUE(mentions(problems, "8 ops in the text, 7 imported")) << joined(problems);
  EXPECT_TRUE(mentions(problems, "is stablehlo.tanh in the text, return imported"))
      << joined(problems);

  ir::Module renamed = buildSmoke();
  renamed.functions[0].name = "entry";
  problems = compareStrict(readFixture("artifact.generic.mlir"), renamed);
  EXPECT_TRUE(mentions(problems, "@main: function missing")) << joined(problems);
  EXPECT_TRUE(mentions(problems, "@entry: function not in the text")) << joined(problems);
}

TEST(LooseCompare, ProgramTextAcceptsReorderedConstants) {
  // The program text creates 1.25 first; the artifact (and our rebuild) 0.5.
  ir::Module m = buildSmoke();
  std::vector<std::string> problems =
      compareLoose(readFixture("program.generic.mlir"), m);
  EXPECT_TRUE(problems.empty()) << joined(problems);
}

TEST(LooseCompare, ReportsChangedConstantsAndOps) {
  ir::Module m = buildSmoke();
  mainOps(m)[0].attrs[0].second = ir::denseFromValues(kScalar, {0.25});
  mainOps(m)[6].kind = OpKind::Exponential;
  std::vector<std::string> problems =
      compareLoose(readFixture("program.generic.mlir"), m);
  EXPECT_TRUE(mentions(problems, "constant dense<5.000000e-01>", "not imported"))
      << joined(problems);
  EXPECT_TRUE(
      mentions(problems, "imported constant of type tensor<f32> matches no constant"))
      << joined(problems);
  EXPECT_TRUE(mentions(problems, "op 4 is tanh in the text, exponential imported"))
      << joined(problems);
}

TEST(LooseCompare, ChecksWiringWithConstantsStandingForTheirValues) {
  ir::Module m = buildSmoke();
  std::vector<ir::Op>& ops = mainOps(m);
  // The first broadcast now reads 0.5 instead of 1.25: both constants still
  // exist, so only the wiring shows the difference.
  std::swap(ops[2].operands[0], ops[4].operands[0]);
  std::swap(ops[5].operands[0], ops[5].operands[1]);  // add
  ops[6].attrs.push_back({"extra", int64_t{1}});      // extra IR attributes are fine
  std::vector<std::string> problems =
      compareLoose(readFixture("program.generic.mlir"), m);
  EXPECT_TRUE(mentions(
      problems, "line 5 stablehlo.broadcast_in_dim: operand 0 (%0)",
      "constant dense<1.250000e+00> : tensor<f32> in the text, constant of type"))
      << joined(problems);
  EXPECT_TRUE(mentions(problems, "line 8 stablehlo.broadcast_in_dim: operand 0 (%3)"))
      << joined(problems);
  EXPECT_TRUE(mentions(
      problems, "stablehlo.add: operand 0 (%2)",
      "result 0 of non-constant op 1 in the text, result 0 of non-constant op 2"))
      << joined(problems);
  EXPECT_EQ(problems.size(), 4u) << joined(problems);
}

// Attributes of other spellings, on a small text written for this test.
constexpr std::string_view kAttrText = R"(
"builtin.module"() <{sym_name = "attrs"}> ({
  "func.func"() <{function_type = (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xi1>, sym_name = "f", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<2x3xf32>, %arg1: tensor<3x4xf32>):
    %0 = "stablehlo.dot_general"(%arg0, %arg1) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    %1 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<2x4xf32>
    %2 = "stablehlo.compare"(%0, %1) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
    "func.return"(%2) : (tensor<2x4xi1>) -> ()
  }) : () -> ()
}) : () -> ()
)";

ir::Module buildAttrModule(ir::ComparisonDirection direction, int64_t iota_dim,
                           std::vector<int64_t> rhs_contracting) {
  ir::Module m;
  m.name = "attrs";
  ir::Builder b(m);
  Type lhs = Type::tensor(ir::ElementType::F32, {2, 3});
  Type rhs = Type::tensor(ir::ElementType::F32, {3, 4});
  Type out = Type::tensor(ir::ElementType::F32, {2, 4});
  Type pred = Type::tensor(ir::ElementType::PRED, {2, 4});
  auto args = b.beginFunction("f", {lhs, rhs}, {pred}, /*is_public=*/false);
  ir::DotDimensionNumbers dims;
  dims.lhs_contracting_dims = {1};
  dims.rhs_contracting_dims = std::move(rhs_contracting);
  ir::ValueId dot = b.op1(OpKind::DotGeneral, {args[0], args[1]}, out,
                          {{"dot_dimension_numbers", dims}});
  ir::ValueId iota = b.op1(OpKind::Iota, {}, out, {{"iota_dimension", iota_dim}});
  ir::ValueId cmp = b.op1(
      OpKind::Compare, {dot, iota}, pred,
      {{"compare_type", ir::ComparisonType::FLOAT}, {"comparison_direction", direction}});
  b.ret({cmp});
  b.endFunction();
  return m;
}

TEST(StrictCompare, DotIotaAndCompareAttributes) {
  StatusOr<TextModule> text = parseGenericText(kAttrText);
  ASSERT_TRUE(text.isOk()) << text.status().toString();
  std::vector<std::string> problems =
      compareStrict(*text, buildAttrModule(ir::ComparisonDirection::LT, 1, {0}));
  EXPECT_TRUE(problems.empty()) << joined(problems);

  problems = compareStrict(*text, buildAttrModule(ir::ComparisonDirection::GT, 0, {1}));
  EXPECT_TRUE(mentions(problems, "comparison_direction", "expected LT, import has GT"))
      << joined(problems);
  EXPECT_TRUE(mentions(problems, "iota_dimension", "expected 1, import has 0"))
      << joined(problems);
  EXPECT_TRUE(mentions(problems, "dot_dimension_numbers")) << joined(problems);
  EXPECT_EQ(problems.size(), 3u) << joined(problems);
}

TEST(StrictCompare, DiscardableAttributesMustSurvive) {
  StatusOr<TextModule> text = parseGenericText(R"(
"builtin.module"() <{sym_name = "cc"}> ({
  "func.func"() <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "main"}> ({
  ^bb0(%arg0: tensor<4xi32>):
    %0 = "stablehlo.custom_call"(%arg0) <{call_target_name = "foo"}> {mhlo.backend_config = {}, mhlo.note = "kept"} : (tensor<4xi32>) -> tensor<4xi32>
    "func.return"(%0) : (tensor<4xi32>) -> ()
  }) : () -> ()
}) : () -> ()
)");
  ASSERT_TRUE(text.isOk()) << text.status().toString();
  Type v = Type::tensor(ir::ElementType::I32, {4});
  ir::Module m;
  m.name = "cc";
  ir::Builder b(m);
  auto args = b.beginFunction("main", {v}, {v});
  ir::ValueId r = b.op1(
      OpKind::CustomCall, {args[0]}, v,
      {{"call_target_name", std::string("foo")}, {"mhlo.note", std::string("changed")}});
  b.ret({r});
  b.endFunction();
  std::vector<std::string> problems = compareStrict(*text, m);
  EXPECT_TRUE(mentions(problems, "attribute mhlo.backend_config missing"))
      << joined(problems);
  EXPECT_TRUE(mentions(problems, "attribute mhlo.note", "\"kept\"")) << joined(problems);
  EXPECT_EQ(problems.size(), 2u) << joined(problems);
}

}  // namespace
}  // namespace jft::conformance
