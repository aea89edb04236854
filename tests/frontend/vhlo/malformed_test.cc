// Malformed trees never crash the importer: starting from real fixture
// trees, every attribute of every op is in turn removed, replaced by one of
// the wrong kind, operands are pointed out of range and result types
// dropped. Each import must end in a status (an error, or success where the
// mutation is harmless), never a crash.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "frontend/bytecode/reader.h"
#include "frontend/vhlo/import.h"
#include "tree_builder.h"

namespace jft::frontend::vhlo_test {
namespace {

namespace fs = std::filesystem;

MTree readFixtureTree(const std::string& name) {
  const char* env = std::getenv("JFT_FIXTURE_DIR");
  fs::path path = fs::path(env ? env : JFT_FIXTURE_DIR) / name / "program.mlirbc";
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string bytes = ss.str();
  auto tree = readBytecode(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  EXPECT_TRUE(tree.isOk()) << name << ": " << tree.status().toString();
  return tree.isOk() ? std::move(tree).value() : MTree{};
}

// Calls `visit` on every op of the tree (module, functions, nested ops).
void forEachOp(std::vector<MOp>& ops, const std::function<void(MOp&)>& visit) {
  for (MOp& op : ops) {
    visit(op);
    for (MRegion& region : op.regions)
      for (MBlock& block : region.blocks) forEachOp(block.ops, visit);
  }
}

size_t countOps(MTree& tree) {
  size_t n = 0;
  forEachOp(tree.top, [&](MOp&) { ++n; });
  return n;
}

// Applies `mutate` to the i-th op of a fresh copy and imports it.
template <typename Mutate>
Status importMutated(const MTree& original, size_t target, Mutate mutate) {
  MTree tree = original;
  size_t i = 0;
  forEachOp(tree.top, [&](MOp& op) {
    if (i++ == target) mutate(op);
  });
  auto m = importTree(tree);
  return m.isOk() ? Status::ok() : m.status();
}

class Malformed : public ::testing::TestWithParam<const char*> {};

TEST_P(Malformed, MutatedFixtureTreesGiveStatusesNotCrashes) {
  MTree tree = readFixtureTree(GetParam());
  ASSERT_TRUE(importTree(tree).isOk());
  const size_t n = countOps(tree);
  size_t errors = 0;
  for (size_t target = 0; target < n; ++target) {
    size_t num_attrs = 0;
    {
      size_t i = 0;
      forEachOp(tree.top, [&](MOp& op) {
        if (i++ == target) num_attrs = op.attrs.size();
      });
    }
    for (size_t a = 0; a < num_attrs; ++a) {
      Status removed = importMutated(tree, target, [&](MOp& op) {
        op.attrs.erase(op.attrs.begin() + static_cast<ptrdiff_t>(a));
      });
      Status wrong = importMutated(
          tree, target, [&](MOp& op) { op.attrs[a].second = stringAttr("x"); });
      Status array = importMutated(tree, target, [&](MOp& op) {
        op.attrs[a].second = arrayAttr({intAttr(1), nullptr});
      });
      errors += !removed.isOk() + !wrong.isOk() + !array.isOk();
    }
    Status operand = importMutated(tree, target, [](MOp& op) {
      if (!op.operands.empty()) op.operands[0] = 0xFFFFFF;
    });
    Status types = importMutated(tree, target, [](MOp& op) { op.result_types.clear(); });
    Status regions = importMutated(tree, target, [](MOp& op) { op.regions.clear(); });
    Status location = importMutated(tree, target, [](MOp& op) { op.loc = nullptr; });
    EXPECT_TRUE(location.isOk()) << location.toString();
    errors += !operand.isOk() + !types.isOk() + !regions.isOk();
  }
  EXPECT_GT(errors, n);  // most mutations are caught, none crash
}

TEST(MalformedNesting, DeepRegionsAndAttributesAreRefusedNotOverflowed) {
  // optimization_barrier-free nesting: case ops inside case ops, 1000 deep.
  TreeBuilder b;
  MTypePtr i32 = tensor({}, intType(32));
  std::function<MOp(int, uint32_t)> nest = [&](int depth, uint32_t index) {
    MOp op = b.op("vhlo.case_v1", {index}, {});
    op.regions.push_back(b.region({}, [&](const std::vector<uint32_t>&) {
      std::vector<MOp> body;
      if (depth > 0) body.push_back(nest(depth - 1, index));
      body.push_back(b.ret({}));
      return body;
    }));
    return op;
  };
  MOp f = b.func("main", {i32}, {}, [&](const std::vector<uint32_t>& args) {
    std::vector<MOp> ops;
    ops.push_back(nest(1000, args[0]));
    ops.push_back(b.ret({}));
    return ops;
  });
  std::vector<MOp> fns;
  fns.push_back(std::move(f));
  auto deep = importTree(b.module(std::move(fns)));
  EXPECT_EQ(deep.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(deep.status().message().find("nested too deeply"), std::string::npos);

  TreeBuilder b2;
  MAttrPtr nested = intAttr(0);
  for (int i = 0; i < 1000; ++i) nested = arrayAttr({nested});
  MOp g = b2.func("main", {i32}, {i32}, [&](const std::vector<uint32_t>& args) {
    std::vector<MOp> ops;
    ops.push_back(b2.op("vhlo.negate_v1", args, {i32}, {{"mhlo.deep", nested}}));
    ops.push_back(b2.ret(ops.back().results));
    return ops;
  });
  std::vector<MOp> fns2;
  fns2.push_back(std::move(g));
  auto attr = importTree(b2.module(std::move(fns2)));
  EXPECT_EQ(attr.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(attr.status().message().find("nested too deeply"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Malformed,
                         ::testing::Values("smoke", "softmax", "sort_topk", "linalg",
                                           "conv2d", "gather_scatter", "cond"));

}  // namespace
}  // namespace jft::frontend::vhlo_test

namespace jft::frontend::vhlo_test {
namespace {

std::string fixtureBytes(const std::string& name) {
  const char* env = std::getenv("JFT_FIXTURE_DIR");
  std::ifstream in(fs::path(env ? env : JFT_FIXTURE_DIR) / name / "program.mlirbc",
                   std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

StatusCode importBytes(const std::string& bytes) {
  auto m = importStableHlo(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  return m.isOk() ? StatusCode::kOk : m.status().code();
}

TEST(CorruptBytes, EveryPrefixOfAnArtifactFailsCleanly) {
  const std::string bytes = fixtureBytes("smoke");
  ASSERT_FALSE(bytes.empty());
  for (size_t n = 0; n < bytes.size(); ++n) {
    StatusCode code = importBytes(bytes.substr(0, n));
    EXPECT_NE(code, StatusCode::kOk) << "prefix of " << n << " bytes";
  }
}

TEST(CorruptBytes, FlippedBytesGiveAStatus) {
  // A fixed linear congruential sequence: the same flips on every run.
  uint64_t state = 0x9E3779B97F4A7C15u;
  auto next = [&] {
    state = state * 6364136223846793005u + 1442695040888963407u;
    return state >> 33;
  };
  for (const char* name : {"smoke", "softmax", "cond", "gather_scatter"}) {
    const std::string original = fixtureBytes(name);
    for (int trial = 0; trial < 300; ++trial) {
      std::string bytes = original;
      for (int flips = 0; flips < 3; ++flips)
        bytes[next() % bytes.size()] ^= static_cast<char>(1 + next() % 255);
      StatusCode code = importBytes(bytes);
      EXPECT_TRUE(code == StatusCode::kOk || code == StatusCode::kInvalidArgument ||
                  code == StatusCode::kUnimplemented ||
                  code == StatusCode::kResourceExhausted)
          << name << " trial " << trial << ": " << statusCodeName(code);
    }
  }
}

}  // namespace
}  // namespace jft::frontend::vhlo_test
