// The conformance test proper: every zoo fixture's program.mlirbc imported by
// the frontend and compared with its generic texts by the reference reader.
// Strict against artifact.generic.mlir (the same module as the bytecode),
// loose against program.generic.mlir (see conformance_check.h).
#if __has_include("frontend/vhlo/import.h")

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "conformance_check.h"
#include "fixture_paths.h"
#include "frontend/vhlo/import.h"

namespace jft::conformance {
namespace {

std::vector<uint8_t> readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

std::string report(const std::string& what, const std::vector<std::string>& problems) {
  std::string s = std::to_string(problems.size()) + " mismatches against " + what + ":\n";
  for (const std::string& p : problems) s += "  " + p + "\n";
  return s;
}

class ZooConformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    std::vector<uint8_t> bytes = readBytes(fixturePath(GetParam(), "program.mlirbc"));
    ASSERT_FALSE(bytes.empty()) << "cannot read program.mlirbc of " << GetParam();
    StatusOr<ir::Module> module = frontend::importStableHlo(bytes.data(), bytes.size());
    ASSERT_TRUE(module.isOk()) << module.status().toString();
    module_ = std::move(module).value();
  }

  TextModule text(const std::string& file) {
    StatusOr<TextModule> m = readGenericFile(fixturePath(GetParam(), file));
    EXPECT_TRUE(m.isOk()) << m.status().toString();
    return m.isOk() ? std::move(m).value() : TextModule{};
  }

  ir::Module module_;
};

TEST_P(ZooConformance, MatchesArtifactTextOpByOp) {
  std::vector<std::string> problems =
      compareStrict(text("artifact.generic.mlir"), module_);
  EXPECT_TRUE(problems.empty()) << report("artifact.generic.mlir", problems);
}

TEST_P(ZooConformance, MatchesProgramTextUpToConstantsAndChlo) {
  std::vector<std::string> problems = compareLoose(text("program.generic.mlir"), module_);
  EXPECT_TRUE(problems.empty()) << report("program.generic.mlir", problems);
}

// The comparison must see through a real import: defects planted in the
// imported mlp are each reported.
TEST(ZooConformanceSelfCheck, PlantedDefectsInImportedMlpAreReported) {
  std::vector<uint8_t> bytes = readBytes(fixturePath("mlp", "program.mlirbc"));
  StatusOr<ir::Module> module = frontend::importStableHlo(bytes.data(), bytes.size());
  ASSERT_TRUE(module.isOk()) << module.status().toString();
  ir::Op* dot = nullptr;
  for (ir::Op& op : module->functions.at(0).body.ops)
    if (op.kind == ir::OpKind::DotGeneral && !dot) dot = &op;
  ASSERT_NE(dot, nullptr);
  std::swap(dot->operands[0], dot->operands[1]);
  dot->loc = ir::kUnknownLoc;
  auto* dims = const_cast<ir::DotDimensionNumbers*>(
      ir::findAttrAs<ir::DotDimensionNumbers>(dot->attrs, "dot_dimension_numbers"));
  ASSERT_NE(dims, nullptr);
  dims->lhs_contracting_dims = {0};

  StatusOr<TextModule> text =
      readGenericFile(fixturePath("mlp", "artifact.generic.mlir"));
  ASSERT_TRUE(text.isOk()) << text.status().toString();
  std::vector<std::string> problems = compareStrict(*text, *module);
  std::string all = report("artifact.generic.mlir", problems);
  EXPECT_EQ(problems.size(), 4u) << all;
  EXPECT_NE(all.find("operand 0"), std::string::npos) << all;
  EXPECT_NE(all.find("operand 1"), std::string::npos) << all;
  EXPECT_NE(all.find("no file location imported"), std::string::npos) << all;
  EXPECT_NE(all.find("dot_dimension_numbers"), std::string::npos) << all;
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooConformance, ::testing::ValuesIn(fixtureNames()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace jft::conformance

#endif  // __has_include("frontend/vhlo/import.h")
