// Tests of the reference reader itself, on small texts and on the fixtures.
#include "generic_text.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>

#include "fixture_paths.h"

namespace jft::conformance {
namespace {

TextModule parseOrDie(std::string_view text) {
  StatusOr<TextModule> module = parseGenericText(text);
  EXPECT_TRUE(module.isOk()) << module.status().toString();
  return module.isOk() ? std::move(module).value() : TextModule{};
}

int countOps(const std::vector<TextOp>& ops) {
  int n = 0;
  for (const TextOp& op : ops) {
    ++n;
    for (const TextRegion& region : op.regions) n += countOps(region.ops);
  }
  return n;
}

TEST(GenericTextTypes, TensorTokenTupleAndScalar) {
  StatusOr<TextType> t = parseTextType("tensor<4x?x8xcomplex<f32>>");
  ASSERT_TRUE(t.isOk()) << t.status().toString();
  EXPECT_EQ(t->kind, TextType::Kind::Tensor);
  EXPECT_EQ(t->dims, (std::vector<int64_t>{4, -1, 8}));
  EXPECT_EQ(t->element, "complex<f32>");

  t = parseTextType("tensor<i1>");
  ASSERT_TRUE(t.isOk());
  EXPECT_TRUE(t->dims.empty());
  EXPECT_EQ(t->element, "i1");

  t = parseTextType("!stablehlo.token");
  ASSERT_TRUE(t.isOk());
  EXPECT_EQ(t->kind, TextType::Kind::Token);

  t = parseTextType("tuple<tensor<2xf32>, tuple<!stablehlo.token>>");
  ASSERT_TRUE(t.isOk());
  ASSERT_EQ(t->kind, TextType::Kind::Tuple);
  ASSERT_EQ(t->tuple.size(), 2u);
  EXPECT_EQ(t->tuple[0].dims, (std::vector<int64_t>{2}));
  EXPECT_EQ(t->tuple[1].tuple[0].kind, TextType::Kind::Token);
}

TEST(GenericTextTypes, FunctionTypes) {
  StatusOr<TextFunctionType> f =
      parseTextFunctionType("(tensor<8x100xf32>) -> (tensor<8x4xf32>, tensor<8x4xi32>)");
  ASSERT_TRUE(f.isOk()) << f.status().toString();
  ASSERT_EQ(f->inputs.size(), 1u);
  ASSERT_EQ(f->results.size(), 2u);
  EXPECT_EQ(f->results[1].element, "i32");

  f = parseTextFunctionType("() -> ()");
  ASSERT_TRUE(f.isOk());
  EXPECT_TRUE(f->inputs.empty());
  EXPECT_TRUE(f->results.empty());

  f = parseTextFunctionType("(tensor<f32>, tensor<f32>) -> tensor<i1>");
  ASSERT_TRUE(f.isOk());
  EXPECT_EQ(f->inputs.size(), 2u);
  ASSERT_EQ(f->results.size(), 1u);
  EXPECT_EQ(f->results[0].element, "i1");

  EXPECT_FALSE(parseTextFunctionType("tensor<f32>").isOk());
  EXPECT_FALSE(parseTextFunctionType("(tensor<f32>").isOk());
}

TEST(GenericText, OpsResultsOperandsAndAttributes) {
  TextModule m = parseOrDie(R"(
"builtin.module"() <{sym_name = "m"}> ({
  "func.func"() <{function_type = (tensor<2xf32>) -> tensor<2xf32>, sym_name = "main"}> ({
  ^bb0(%arg0: tensor<2xf32>):
    %0:2 = "stablehlo.sort"(%arg0, %arg0) <{dimension = 0 : i64}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<f32>, %d: tensor<f32>):
      %1 = "stablehlo.compare"(%a, %b) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      "stablehlo.return"(%1) : (tensor<i1>) -> ()
    }) {mhlo.sharding = "{replicated}", unit_attr} : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
    "func.return"(%0#1) : (tensor<2xf32>) -> ()
  }) : () -> ()
}) : () -> ()
)");
  std::vector<const TextOp*> functions = m.functions();
  ASSERT_EQ(functions.size(), 1u);
  const TextOp& main = *functions[0];
  EXPECT_EQ(main.property("sym_name")->value, "\"main\"");
  EXPECT_EQ(main.property("function_type")->value, "(tensor<2xf32>) -> tensor<2xf32>");
  const TextRegion& body = main.regions.at(0);
  ASSERT_EQ(body.args.size(), 1u);
  EXPECT_EQ(body.args[0].name, "%arg0");
  ASSERT_EQ(body.ops.size(), 2u);

  const TextOp& sort = body.ops[0];
  EXPECT_EQ(sort.name, "stablehlo.sort");
  EXPECT_EQ(sort.results, (std::vector<std::string>{"%0#0", "%0#1"}));
  EXPECT_EQ(sort.operands, (std::vector<std::string>{"%arg0", "%arg0"}));
  EXPECT_EQ(sort.property("dimension")->value, "0 : i64");
  EXPECT_EQ(sort.attribute("mhlo.sharding")->value, "\"{replicated}\"");
  ASSERT_NE(sort.attribute("unit_attr"), nullptr);
  EXPECT_EQ(sort.attribute("unit_attr")->value, "");
  ASSERT_EQ(sort.regions.size(), 1u);
  EXPECT_EQ(sort.regions[0].args.size(), 4u);
  EXPECT_EQ(sort.regions[0].ops[0].property("comparison_direction")->value,
            "#stablehlo<comparison_direction LT>");
  EXPECT_EQ(sort.result_types.size(), 2u);
  EXPECT_EQ(body.ops[1].operands, (std::vector<std::string>{"%0#1"}));
  EXPECT_EQ(body.ops[1].line, 10);
}

TEST(GenericText, LocationsThroughAliasesDefinedLater) {
  TextModule m = parseOrDie(R"(#loc1 = loc("x")
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "f"}> ({
  ^bb0(%arg0: tensor<f32> loc("x")):
    %0 = "stablehlo.negate"(%arg0) : (tensor<f32>) -> tensor<f32> loc(#loc5)
    %1 = "stablehlo.abs"(%0) : (tensor<f32>) -> tensor<f32> loc(fused["a.py":1:2, "b.py":3:4])
    %2 = "stablehlo.abs"(%1) : (tensor<f32>) -> tensor<f32> loc("n"("c.py":7:8 to 9:10))
    "func.return"(%2) : (tensor<f32>) -> () loc(unknown)
  }) : () -> () loc(#loc)
}) : () -> () loc(#loc)
#loc = loc(unknown)
#loc2 = loc("zoo.py":17:20 to :28)
#loc3 = loc("outer.py":1:1)
#loc4 = loc(callsite(#loc2 at #loc3))
#loc5 = loc("jit(f)/neg"(#loc4))
)");
  const TextRegion& body = m.functions().at(0)->regions.at(0);
  EXPECT_EQ(m.userFrame(body.ops[0].loc), (FileFrame{"zoo.py", 17, 20}));
  EXPECT_EQ(m.userFrame(body.ops[1].loc), (FileFrame{"a.py", 1, 2}));
  EXPECT_EQ(m.userFrame(body.ops[2].loc), (FileFrame{"c.py", 7, 8}));
  EXPECT_EQ(m.userFrame(body.ops[3].loc), std::nullopt);
  EXPECT_EQ(m.userFrame(body.args[0].loc), std::nullopt);
  EXPECT_EQ(m.userFrame(m.functions()[0]->loc), std::nullopt);
}

TEST(GenericText, ErrorsNameTheLine) {
  StatusOr<TextModule> m =
      parseGenericText("\"builtin.module\"() ({\n  %0 = \"a.b\"(%x : () -> ()\n");
  ASSERT_FALSE(m.isOk());
  EXPECT_NE(m.status().message().find("generic text 2:"), std::string::npos)
      << m.status().message();

  m = parseGenericText("\"a.b\"() : () -> () loc(#loc9)\n");
  ASSERT_FALSE(m.isOk());
  EXPECT_NE(m.status().message().find("#loc9"), std::string::npos);
}

// Bad text must give an error, never a crash or a hang: every prefix of a
// fixture and copies with one byte overwritten by a bracket or quote.
TEST(GenericText, DamagedTextFailsCleanly) {
  std::ifstream in(fixturePath("sort_topk", "artifact.generic.mlir"));
  std::string text((std::istreambuf_iterator<char>(in)), {});
  ASSERT_GT(text.size(), 1000u);
  int failures = 0;
  for (size_t keep = 0; keep < text.size(); keep += 31)
    if (!parseGenericText(std::string_view(text).substr(0, keep)).isOk()) ++failures;
  EXPECT_GT(failures, 0);
  for (size_t at = 0; at < text.size(); at += 61)
    for (char c : {'(', '}', '"', '<', '%'}) {
      std::string damaged = text;
      damaged[at] = c;
      (void)parseGenericText(damaged);
    }
}

// An independent count: lines that start an op ("name"( after an optional
// result list) in the raw file.
int countOpLines(const std::string& path) {
  std::ifstream in(path);
  std::regex op_line(R"(^\s*(%[^=]*=\s*)?"[a-z_]+\.[a-z_.]+"\()");
  int n = 0;
  for (std::string line; std::getline(in, line);)
    if (std::regex_search(line, op_line)) ++n;
  return n;
}

class GenericTextFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(GenericTextFixture, ParsesBothTextsWithEveryOp) {
  for (const char* file : {"program.generic.mlir", "artifact.generic.mlir"}) {
    std::string path = fixturePath(GetParam(), file);
    StatusOr<TextModule> m = readGenericFile(path);
    ASSERT_TRUE(m.isOk()) << m.status().toString();
    EXPECT_EQ(countOps(m->top), countOpLines(path)) << path;
    ASSERT_NE(m->moduleOp(), nullptr);
    EXPECT_FALSE(m->functions().empty());
  }
}

TEST_P(GenericTextFixture, EveryArtifactOpHasAResolvableLocation) {
  StatusOr<TextModule> m =
      readGenericFile(fixturePath(GetParam(), "artifact.generic.mlir"));
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  int with_frame = 0;
  std::vector<const std::vector<TextOp>*> pending = {&m->top};
  while (!pending.empty()) {
    const std::vector<TextOp>* ops = pending.back();
    pending.pop_back();
    for (const TextOp& op : *ops) {
      EXPECT_NE(op.loc, kNoLoc) << "line " << op.line;
      if (m->userFrame(op.loc)) ++with_frame;
      for (const TextRegion& r : op.regions) pending.push_back(&r.ops);
    }
  }
  EXPECT_GT(with_frame, 0);
}

INSTANTIATE_TEST_SUITE_P(Zoo, GenericTextFixture, ::testing::ValuesIn(fixtureNames()),
                         [](const auto& info) { return info.param; });

TEST(GenericTextZoo, SmokeArtifactKnownOps) {
  StatusOr<TextModule> m = readGenericFile(fixturePath("smoke", "artifact.generic.mlir"));
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  EXPECT_EQ(m->moduleOp()->property("sym_name")->value, "\"jit_smoke\"");
  const TextOp& main = *m->functions().at(0);
  EXPECT_EQ(main.property("sym_visibility")->value, "\"public\"");
  const TextRegion& body = main.regions.at(0);
  ASSERT_EQ(body.ops.size(), 8u);
  EXPECT_EQ(body.ops[1].property("value")->value, "dense<1.250000e+00> : tensor<f32>");
  const TextOp& mul = body.ops[3];
  EXPECT_EQ(mul.name, "stablehlo.multiply");
  EXPECT_EQ(mul.operands, (std::vector<std::string>{"%arg0", "%2"}));
  EXPECT_EQ(m->userFrame(mul.loc), (FileFrame{"zoo.py", 17, 20}));
  EXPECT_EQ(m->userFrame(body.ops[6].loc), (FileFrame{"zoo.py", 17, 11}));
  // The constants carry jit(smoke) whose frame is the dump script's line.
  EXPECT_EQ(m->userFrame(body.ops[0].loc), (FileFrame{"dump_fixtures.py", 31, 14}));
}

TEST(GenericTextZoo, SortTopkFunctionsAndComposite) {
  StatusOr<TextModule> m =
      readGenericFile(fixturePath("sort_topk", "artifact.generic.mlir"));
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  std::vector<const TextOp*> functions = m->functions();
  ASSERT_EQ(functions.size(), 3u);
  EXPECT_EQ(functions[1]->property("sym_name")->value, "\"chlo.top_k.impl\"");
  EXPECT_EQ(functions[1]->property("sym_visibility")->value, "\"private\"");
  const TextOp& composite = functions[0]->regions[0].ops[1];
  EXPECT_EQ(composite.name, "stablehlo.composite");
  EXPECT_EQ(composite.results, (std::vector<std::string>{"%18#0", "%18#1"}));
  EXPECT_EQ(composite.property("decomposition")->value, "@chlo.top_k.impl");
  const TextOp& ret = functions[0]->regions[0].ops[2];
  EXPECT_EQ(ret.operands, (std::vector<std::string>{"%17", "%18#0", "%18#1"}));
  const TextOp& sort = functions[2]->regions[0].ops[2];
  ASSERT_EQ(sort.regions.size(), 1u);
  EXPECT_EQ(sort.regions[0].args.size(), 2u);
  EXPECT_EQ(sort.regions[0].ops.size(), 10u);
  // A comparator operand captured from the enclosing function body.
  EXPECT_EQ(sort.regions[0].ops[0].operands[1], "%1");
}

}  // namespace
}  // namespace jft::conformance
