// Every zoo fixture's program.mlirbc through importStableHlo, checked
// against facts read from the fixture's own text: artifact.generic.mlir is
// StableHLO's rendering of the same artifact (op counts per name, function
// names and visibility), program.mlir the readable form (a few hand-picked
// facts). The full op-by-op comparison is the conformance test's job.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "frontend/vhlo/import.h"
#include "import_test_util.h"
#include "ir/verifier.h"

namespace jft::frontend::vhlo_test {
namespace {

namespace fs = std::filesystem;
using ir::OpKind;

std::string fixtureDir() {
  if (const char* env = std::getenv("JFT_FIXTURE_DIR")) return env;
  return JFT_FIXTURE_DIR;
}

std::vector<std::string> fixtureNames() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(fixtureDir()))
    if (entry.is_directory() && fs::exists(entry.path() / "program.mlirbc"))
      names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string readText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

StatusOr<ir::Module> importFixture(const std::string& name) {
  std::string bytes = readText(fs::path(fixtureDir()) / name / "program.mlirbc");
  return importStableHlo(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

// Op name -> count, as StableHLO's generic text spells ops.
using OpCounts = std::map<std::string, int>;

OpCounts countTextOps(const std::string& text) {
  OpCounts counts;
  static const std::regex kOp(R"re("((stablehlo|func)\.[a-z_\-]+)"\()re");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kOp);
       it != std::sregex_iterator(); ++it)
    if ((*it)[1] != "func.func") ++counts[(*it)[1]];
  return counts;
}

void countRegion(const ir::Region& region, bool function_body, OpCounts& counts) {
  for (const ir::Op& op : region.ops) {
    std::string name(ir::opKindName(op.kind));
    if (op.kind == OpKind::Call)
      name = "func.call";
    else if (op.kind == OpKind::Return && function_body)
      name = "func.return";
    else
      name = "stablehlo." + name;
    ++counts[name];
    for (const ir::Region& r : op.regions) countRegion(r, false, counts);
  }
}

OpCounts countIrOps(const ir::Module& m) {
  OpCounts counts;
  for (const ir::Function& f : m.functions) countRegion(f.body, true, counts);
  return counts;
}

// Function name -> public, from "func.func" headers of the generic text.
std::map<std::string, bool> textFunctions(const std::string& text) {
  std::map<std::string, bool> out;
  static const std::regex kFunc(
      R"re("func\.func"\(\) <\{[^\n]*sym_name = "([^"]+)", sym_visibility = "([a-z]+)")re");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kFunc);
       it != std::sregex_iterator(); ++it)
    out[(*it)[1]] = (*it)[2] == "public";
  return out;
}

TEST(Fixtures, ThereAreFixtures) {
  EXPECT_GE(fixtureNames().size(), 20u);
}

TEST(Fixtures, EveryFixtureImportsAndVerifies) {
  for (const std::string& name : fixtureNames()) {
    auto m = importFixture(name);
    ASSERT_TRUE(m.isOk()) << name << ": " << m.status().toString();
    std::string text = readText(fs::path(fixtureDir()) / name / "artifact.generic.mlir");
    std::smatch module_name;
    ASSERT_TRUE(std::regex_search(
        text, module_name,
        std::regex(R"re("builtin\.module"\(\) <\{sym_name = "([^"]+)")re")));
    EXPECT_EQ(m->name, module_name[1]) << name;
    Status verified = ir::verifyModule(*m);
    EXPECT_TRUE(verified.isOk()) << name << ": " << verified.toString();
  }
}

TEST(Fixtures, OpCountsMatchTheGenericText) {
  for (const std::string& name : fixtureNames()) {
    auto m = importFixture(name);
    ASSERT_TRUE(m.isOk()) << name << ": " << m.status().toString();
    std::string text = readText(fs::path(fixtureDir()) / name / "artifact.generic.mlir");
    EXPECT_EQ(countIrOps(*m), countTextOps(text)) << name;
  }
}

TEST(Fixtures, FunctionsAndVisibilityMatchTheGenericText) {
  for (const std::string& name : fixtureNames()) {
    auto m = importFixture(name);
    ASSERT_TRUE(m.isOk()) << name;
    std::string text = readText(fs::path(fixtureDir()) / name / "artifact.generic.mlir");
    std::map<std::string, bool> imported;
    for (const ir::Function& f : m->functions) imported[f.name] = f.is_public;
    EXPECT_EQ(imported, textFunctions(text)) << name;
    ASSERT_NE(m->entry(), nullptr) << name;
    EXPECT_EQ(m->entry()->name, "main") << name;
  }
}

TEST(Fixtures, SmokeProgram) {
  auto m = importFixture("smoke");
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  EXPECT_EQ(*ir::findAttrAs<int64_t>(m->attrs, "mhlo.num_partitions"), 1);
  ASSERT_EQ(m->functions.size(), 1u);
  const ir::Function& main = m->functions[0];
  ASSERT_EQ(main.body.args.size(), 1u);
  EXPECT_EQ(m->typeOf(main.body.args[0]), ir::Type::tensor(ir::ElementType::F32, {256}));
  EXPECT_EQ(main.result_attrs[0],
            (ir::NamedAttrs{{"jax.result_info", ir::Attribute(std::string("result"))}}));

  std::vector<OpKind> kinds;
  for (const ir::Op& op : main.body.ops) kinds.push_back(op.kind);
  EXPECT_EQ(kinds, (std::vector<OpKind>{OpKind::Constant, OpKind::Constant,
                                        OpKind::BroadcastInDim, OpKind::Multiply,
                                        OpKind::BroadcastInDim, OpKind::Add, OpKind::Tanh,
                                        OpKind::Return}));
  // dense<5.0e-01> and dense<1.25> : tensor<f32> (0x3F000000, 0x3FA00000).
  EXPECT_EQ(ir::findAttrAs<ir::DenseElements>(main.body.ops[0].attrs, "value")->bytes,
            (std::vector<uint8_t>{0, 0, 0, 0x3F}));
  EXPECT_EQ(ir::findAttrAs<ir::DenseElements>(main.body.ops[1].attrs, "value")->bytes,
            (std::vector<uint8_t>{0, 0, 0xA0, 0x3F}));
  EXPECT_EQ(*ir::findAttrAs<std::vector<int64_t>>(main.body.ops[2].attrs,
                                                  "broadcast_dimensions"),
            std::vector<int64_t>{});
  // program.mlir: the multiply is x * 1.25 at zoo.py:17:20 ("jit(smoke)/mul").
  EXPECT_EQ(m->locations.describe(main.body.ops[3].loc), "zoo.py:17:20 (jit(smoke)/mul)");
  EXPECT_EQ(main.body.ops[3].operands[0], main.body.args[0]);
  EXPECT_EQ(m->locations.describe(main.body.ops[6].loc),
            "zoo.py:17:11 (jit(smoke)/tanh)");
}

TEST(Fixtures, SoftmaxReductionsHaveMaxAndAddCombiners) {
  auto m = importFixture("softmax");
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  std::vector<OpKind> combiners;
  for (const ir::Op& op : m->entry()->body.ops) {
    if (op.kind != OpKind::Reduce) continue;
    ASSERT_EQ(op.regions.size(), 1u);
    ASSERT_EQ(op.regions[0].args.size(), 2u);
    combiners.push_back(op.regions[0].ops[0].kind);
    EXPECT_EQ(*ir::findAttrAs<std::vector<int64_t>>(op.attrs, "dimensions"),
              std::vector<int64_t>{1});
  }
  EXPECT_EQ(combiners, (std::vector<OpKind>{OpKind::Maximum, OpKind::Add}));
}

TEST(Fixtures, SortTopkCompositeKeepsItsDecomposition) {
  auto m = importFixture("sort_topk");
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  const ir::Op* composite = firstOp(*m, OpKind::Composite);
  ASSERT_NE(composite, nullptr);
  EXPECT_EQ(*ir::findAttrAs<std::string>(composite->attrs, "name"), "chlo.top_k");
  const auto* decomposition =
      ir::findAttrAs<ir::SymbolRef>(composite->attrs, "decomposition");
  ASSERT_NE(decomposition, nullptr);
  EXPECT_NE(m->findFunction(decomposition->name), nullptr);
  EXPECT_EQ(*ir::findAttrAs<ir::NamedAttrs>(composite->attrs, "composite_attributes"),
            (ir::NamedAttrs{{"k", ir::Attribute(int64_t{4})}}));
  EXPECT_EQ(composite->results.size(), 2u);
}

TEST(Fixtures, ConvolutionAndDotAttributes) {
  auto conv = importFixture("conv2d");
  ASSERT_TRUE(conv.isOk());
  const ir::Op* c = firstOp(*conv, OpKind::Convolution);
  ASSERT_NE(c, nullptr);
  // #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, padding dense<1>.
  EXPECT_EQ(*ir::findAttrAs<ir::ConvDimensionNumbers>(c->attrs, "dimension_numbers"),
            (ir::ConvDimensionNumbers{0, 3, {1, 2}, 2, 3, {0, 1}, 0, 3, {1, 2}}));
  const auto* padding = ir::findAttrAs<ir::DenseElements>(c->attrs, "padding");
  ASSERT_NE(padding, nullptr);
  // dense<1> : tensor<2x2xi64> is a splat: one element kept, four read.
  EXPECT_TRUE(padding->splat);
  EXPECT_EQ(padding->bytes.size(), 8u);
  EXPECT_EQ(padding->expanded().size(), 32u);
  EXPECT_EQ(attrNames(*c),
            "batch_group_count,dimension_numbers,feature_group_count,padding");

  auto mlp = importFixture("mlp");
  ASSERT_TRUE(mlp.isOk());
  const ir::Op* dot = firstOp(*mlp, OpKind::DotGeneral);
  ASSERT_NE(dot, nullptr);
  EXPECT_EQ(attrNames(*dot), "dot_dimension_numbers");
}

TEST(Fixtures, ControlFlowRegions) {
  auto cond = importFixture("cond");
  ASSERT_TRUE(cond.isOk()) << cond.status().toString();
  const ir::Op* branch = firstOp(*cond, OpKind::Case);
  ASSERT_NE(branch, nullptr);
  EXPECT_EQ(branch->regions.size(), 2u);
  for (const ir::Region& r : branch->regions)
    EXPECT_EQ(r.ops.back().kind, OpKind::Return);

  auto fori = importFixture("fori");
  ASSERT_TRUE(fori.isOk());
  const ir::Op* loop = firstOp(*fori, OpKind::While);
  ASSERT_NE(loop, nullptr);
  ASSERT_EQ(loop->regions.size(), 2u);
  EXPECT_EQ(loop->regions[0].args.size(), loop->operands.size());
  EXPECT_EQ(loop->regions[1].args.size(), loop->operands.size());
}

}  // namespace
}  // namespace jft::frontend::vhlo_test
