// Every zoo fixture's program.mlirbc decodes, and its tree has the shape of
// the same module's generic text (artifact.generic.mlir): the same ops in
// the same order with the same result/operand counts and locations, the
// same block arguments. The text names ops by their StableHLO names where
// the bytes hold VHLO names, so names are compared after that mapping.
#include <gtest/gtest.h>

#include <functional>
#include <regex>
#include <set>

#include "frontend/bytecode/reader.h"
#include "generic_text_outline.h"
#include "test_support.h"

namespace jft::frontend {
namespace {

using bytecode_test::fixtureDir;
using bytecode_test::fixtureNames;
using bytecode_test::Outline;
using bytecode_test::OutlineItem;

std::string canonicalTreeLoc(const MAttr* loc) {
  if (!loc || loc->kind != MAttr::Kind::Location) return "<not a location>";
  auto child = [&](size_t i) {
    return i < loc->elements.size() ? canonicalTreeLoc(loc->elements[i].get())
                                    : std::string("unknown");
  };
  switch (loc->loc_kind) {
    case MAttr::LocKind::Unknown:
      return "unknown";
    case MAttr::LocKind::Name:
      return "name(\"" + loc->str + "\"," + child(0) + ")";
    case MAttr::LocKind::CallSite:
      return "callsite(" + child(0) + "," + child(1) + ")";
    case MAttr::LocKind::FileLineCol: {
      std::string out = "file(\"" + loc->str + "\"";
      for (int64_t v : loc->ints) out += "," + std::to_string(v);
      return out + ")";
    }
    case MAttr::LocKind::Fused: {
      std::string out = "fused(";
      for (size_t i = 0; i < loc->elements.size(); ++i) out += (i ? "," : "") + child(i);
      return out + ")";
    }
  }
  return "?";
}

// "vhlo.add_v1" -> "stablehlo.add"; func ops go back to the func dialect.
std::string stablehloName(const std::string& name, const std::string& parent) {
  static const std::regex versioned(R"re(^vhlo\.(.*)_v\d+$)re");
  std::smatch m;
  if (!std::regex_match(name, m, versioned)) return name;
  std::string base = m[1];
  if (base == "func") return "func.func";
  if (base == "call") return "func.call";
  if (base == "return")
    return parent == "vhlo.func_v1" ? "func.return" : "stablehlo.return";
  return "stablehlo." + base;
}

std::vector<OutlineItem> treeOutline(const MTree& tree) {
  std::vector<OutlineItem> items;
  std::function<void(const MOp&, const std::string&)> walk =
      [&](const MOp& op, const std::string& parent) {
        OutlineItem item;
        item.name = stablehloName(op.name, parent);
        item.num_results = int(op.results.size());
        item.num_operands = int(op.operands.size());
        if (op.regions.empty()) item.loc = canonicalTreeLoc(op.loc.get());
        items.push_back(item);
        for (const MRegion& region : op.regions) {
          for (size_t b = 0; b < region.blocks.size(); ++b) {
            const MBlock& block = region.blocks[b];
            if (b > 0 || !block.args.empty()) {
              OutlineItem header;
              header.is_block = true;
              header.num_operands = int(block.args.size());
              items.push_back(header);
            }
            for (const MOp& child : block.ops) walk(child, op.name);
          }
        }
      };
  for (const MOp& op : tree.top) walk(op, "");
  return items;
}

std::string describe(const OutlineItem& item) {
  if (item.is_block) return "^bb with " + std::to_string(item.num_operands) + " args";
  return item.name + " results=" + std::to_string(item.num_results) +
         " operands=" + std::to_string(item.num_operands) + " loc=" + item.loc;
}

class Fixture : public testing::TestWithParam<std::string> {
 protected:
  std::string path(const std::string& file) const {
    return fixtureDir() + "/" + GetParam() + "/" + file;
  }
};

TEST_P(Fixture, DecodesLikeItsGenericText) {
  std::vector<uint8_t> bytes = bytecode_test::readFileBytes(path("program.mlirbc"));
  ASSERT_FALSE(bytes.empty());
  StatusOr<MTree> tree = readBytecode(bytes.data(), bytes.size());
  ASSERT_TRUE(tree.isOk()) << tree.status().toString();

  std::string manifest = bytecode_test::readFileText(fixtureDir() + "/MANIFEST.json");
  std::smatch target;
  ASSERT_TRUE(
      std::regex_search(manifest, target, std::regex(R"re("target": "([0-9.]+)")re")));
  EXPECT_EQ(tree->producer, "StableHLO_v" + target[1].str());
  EXPECT_EQ(tree->version, 6u);
  EXPECT_EQ(std::count(tree->dialects.begin(), tree->dialects.end(), "vhlo"), 1);

  Outline expected = bytecode_test::readOutline(
      bytecode_test::readFileText(path("artifact.generic.mlir")));
  std::vector<OutlineItem> actual = treeOutline(*tree);
  size_t num_ops = 0, num_locs = 0;
  for (const auto& item : expected.items) {
    num_ops += !item.is_block;
    num_locs += !item.loc.empty();
    EXPECT_EQ(item.loc.find("<unparsed"), std::string::npos) << item.loc;
    EXPECT_EQ(item.loc.find("<bad alias"), std::string::npos) << item.loc;
  }
  ASSERT_GT(num_ops, 2u);
  EXPECT_GE(num_locs * 2, num_ops);  // most ops have their location on their line
  ASSERT_EQ(actual.size(), expected.items.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    const OutlineItem& want = expected.items[i];
    const OutlineItem& got = actual[i];
    ASSERT_EQ(describe(got), want.loc.empty() && !got.is_block
                                 ? describe({got.is_block, want.name, want.num_results,
                                             want.num_operands, got.loc})
                                 : describe(want))
        << "item " << i;
  }

  ASSERT_EQ(tree->top.size(), 1u);
  const MAttr* sym_name = tree->top[0].attr("sym_name");
  ASSERT_NE(sym_name, nullptr);
  EXPECT_EQ(sym_name->str, expected.module_sym_name);
}

TEST_P(Fixture, ValueIdsAreUniqueAndEveryOperandIsDefined) {
  std::vector<uint8_t> bytes = bytecode_test::readFileBytes(path("program.mlirbc"));
  StatusOr<MTree> tree = readBytecode(bytes.data(), bytes.size());
  ASSERT_TRUE(tree.isOk()) << tree.status().toString();
  std::set<uint32_t> defined;
  std::vector<uint32_t> used;
  std::function<void(const MOp&)> walk = [&](const MOp& op) {
    EXPECT_NE(op.loc, nullptr);
    EXPECT_EQ(op.results.size(), op.result_types.size());
    for (uint32_t id : op.results) EXPECT_TRUE(defined.insert(id).second) << id;
    used.insert(used.end(), op.operands.begin(), op.operands.end());
    for (const MRegion& region : op.regions)
      for (const MBlock& block : region.blocks) {
        EXPECT_EQ(block.args.size(), block.arg_types.size());
        EXPECT_EQ(block.args.size(), block.arg_locs.size());
        for (uint32_t id : block.args) EXPECT_TRUE(defined.insert(id).second) << id;
        for (const MOp& child : block.ops) walk(child);
      }
  };
  for (const MOp& op : tree->top) walk(op);
  for (uint32_t id : used) EXPECT_TRUE(defined.count(id)) << "operand %" << id;
  for (uint32_t id : defined) EXPECT_LT(id, tree->num_values);
}

INSTANTIATE_TEST_SUITE_P(Zoo, Fixture, testing::ValuesIn(fixtureNames()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

TEST(ZooFixtures, AllTwentyArePresent) {
  EXPECT_EQ(fixtureNames().size(), 20u);
}

}  // namespace
}  // namespace jft::frontend
