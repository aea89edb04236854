// Every zoo program (JAX output, tests/fixtures/zoo) through the whole
// pipeline with verification after each pass.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "frontend/vhlo/import.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "pass_test_util.h"
#include "passes/pipeline.h"

namespace jft::passes {
namespace {

using namespace testing;

std::string fixtureDir() {
  if (const char* env = std::getenv("JFT_FIXTURE_DIR"); env && *env) return env;
  return JFT_FIXTURE_DIR;
}

std::vector<std::string> fixtureNames() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(fixtureDir()))
    if (std::filesystem::exists(entry.path() / "program.mlirbc"))
      names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

StatusOr<ir::Module> importFixture(const std::string& name) {
  std::ifstream in(fixtureDir() + "/" + name + "/program.mlirbc", std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  if (bytes.empty()) return notFound("fixture " + name + " is missing");
  return frontend::importStableHlo(bytes.data(), bytes.size());
}

void countKind(const ir::Region& region, OpKind kind, int& count) {
  for (const ir::Op& op : region.ops) {
    if (op.kind == kind) ++count;
    for (const ir::Region& nested : op.regions) countKind(nested, kind, count);
  }
}

int countKind(const ir::Module& m, OpKind kind) {
  int count = 0;
  for (const ir::Function& f : m.functions) countKind(f.body, kind, count);
  return count;
}

class ZooPipeline : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooPipeline, RunsVerifiedAndLeavesNoCall) {
  StatusOr<ir::Module> imported = importFixture(GetParam());
  ASSERT_TRUE(imported.isOk()) << imported.status().toString();
  ir::Module m = std::move(imported).value();
  PipelineOptions options;
  options.verify = true;
  StatusOr<PipelineReport> report = runPasses(m, options);
  ASSERT_TRUE(report.isOk()) << report.status().toString();
  EXPECT_TRUE(report->reached_fixed_point) << describeReport(*report);
  EXPECT_EQ(countKind(m, OpKind::Call), 0);
  // No zoo program has composites or custom calls naming functions, so only
  // the entry is left.
  ASSERT_EQ(m.functions.size(), 1u) << ir::printModule(m);
  EXPECT_EQ(m.functions[0].name, "main");
  // Running again finds nothing to do.
  StatusOr<PipelineReport> again = runPasses(m, options);
  ASSERT_TRUE(again.isOk());
  for (const PassRecord& record : again->passes)
    EXPECT_FALSE(record.changed) << record.pass;
}

TEST_P(ZooPipeline, OutputIsDeterministic) {
  auto optimized = [&]() {
    StatusOr<ir::Module> imported = importFixture(GetParam());
    EXPECT_TRUE(imported.isOk());
    ir::Module m = std::move(imported).value();
    EXPECT_TRUE(runPasses(m).isOk());
    return ir::printModule(m);
  };
  EXPECT_EQ(optimized(), optimized());
}

// The pipeline's output is still IR the text parser takes back whole: print,
// parse, print gives the same text, with and without full locations.
TEST_P(ZooPipeline, OutputRoundTripsThroughText) {
  StatusOr<ir::Module> imported = importFixture(GetParam());
  ASSERT_TRUE(imported.isOk()) << imported.status().toString();
  ir::Module m = std::move(imported).value();
  ASSERT_TRUE(runPasses(m).isOk());
  ir::PrintOptions full;
  full.print_locations = full.full_locations = true;
  for (const ir::PrintOptions& options : {ir::PrintOptions{}, full}) {
    const std::string text = ir::printModule(m, options);
    StatusOr<ir::Module> parsed = ir::parseModule(text);
    ASSERT_TRUE(parsed.isOk()) << parsed.status().toString();
    EXPECT_EQ(ir::printModule(*parsed, options), text);
    expectVerifies(*parsed);
  }
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooPipeline, ::testing::ValuesIn(fixtureNames()),
                         [](const auto& info) { return info.param; });

// The programs that call helper functions (their program.mlir shows
// `call @...`) lose every call.
TEST(ZooPipeline, ProgramsWithCallsAreInlined) {
  for (const char* name : {"mlp_train_step", "transformer_train_step", "linalg", "shapes",
                           "random_normal", "sort_topk", "attention"}) {
    StatusOr<ir::Module> imported = importFixture(name);
    ASSERT_TRUE(imported.isOk()) << name;
    ir::Module m = std::move(imported).value();
    EXPECT_GT(countKind(m, OpKind::Call), 0) << name;
    EXPECT_GT(m.functions.size(), 1u) << name;
    ASSERT_TRUE(runPasses(m, {.verify = true}).isOk()) << name;
    EXPECT_EQ(countKind(m, OpKind::Call), 0) << name;
  }
}

// shapes, worked by hand from artifact.generic.mlir (the text of the
// bytecode, whose constants JAX already hoisted and deduplicated): @_pad's
// convert and pad land where it was called, reading the call's operands;
// nothing is redundant or dead (x * 2.0 and the f32 constants stay).
TEST(ZooPipeline, ShapesProgramByHand) {
  StatusOr<ir::Module> imported = importFixture("shapes");
  ASSERT_TRUE(imported.isOk());
  ir::Module m = std::move(imported).value();
  ASSERT_TRUE(runPasses(m, {.verify = true}).isOk());
  const ir::Region& body = mainOf(m).body;
  ASSERT_EQ(kindsOf(body),
            (std::vector<OpKind>{
                OpKind::Constant, OpKind::Constant, OpKind::Constant, OpKind::Constant,
                OpKind::Constant, OpKind::Transpose, OpKind::Reshape,
                OpKind::BroadcastInDim, OpKind::Multiply, OpKind::Concatenate,
                OpKind::Convert, OpKind::Pad, OpKind::DynamicSlice,
                OpKind::BroadcastInDim, OpKind::DynamicUpdateSlice, OpKind::Return}))
      << ir::printModule(m);
  // %12 = call @_pad(%11, %5): convert(%5), then pad(%11, convert).
  const ir::Op& convert = body.ops[10];
  const ir::Op& pad = body.ops[11];
  EXPECT_EQ(convert.operands[0], body.ops[3].results[0]);
  EXPECT_EQ(pad.operands,
            (std::vector<ValueId>{body.ops[9].results[0], convert.results[0]}));
  // Both dynamic_slice and dynamic_update_slice read the pad.
  EXPECT_EQ(body.ops[12].operands[0], pad.results[0]);
  EXPECT_EQ(body.ops[14].operands[0], pad.results[0]);
}

}  // namespace
}  // namespace jft::passes
