// Corrupt inputs: every fixture truncated at many points and with random
// bit flips and byte overwrites (fixed seed). Each must give an
// INVALID_ARGUMENT error or a tree; a crash, hang or out-of-bounds read
// fails the test (it also runs under ASan/UBSan).
#include <gtest/gtest.h>

#include <random>

#include "frontend/bytecode/reader.h"
#include "test_support.h"

namespace jft::frontend {
namespace {

using bytecode_test::fixtureDir;
using bytecode_test::fixtureNames;

// Reads `bytes` from a buffer of exactly that size (so ASan sees any read
// past the end) and checks the outcome's shape.
void readExpectingErrorOrTree(const std::vector<uint8_t>& bytes,
                              const std::string& what) {
  std::unique_ptr<uint8_t[]> exact(new uint8_t[bytes.size() ? bytes.size() : 1]);
  std::copy(bytes.begin(), bytes.end(), exact.get());
  StatusOr<MTree> tree = readBytecode(exact.get(), bytes.size());
  if (tree.isOk()) {
    std::string dump = dumpTree(*tree, 1 << 14);
    EXPECT_FALSE(dump.empty()) << what;
    return;
  }
  EXPECT_EQ(tree.status().code(), StatusCode::kInvalidArgument) << what;
  EXPECT_FALSE(tree.status().message().empty()) << what;
}

class Corruption : public testing::TestWithParam<std::string> {
 protected:
  std::vector<uint8_t> original() const {
    return bytecode_test::readFileBytes(fixtureDir() + "/" + GetParam() +
                                        "/program.mlirbc");
  }
};

TEST_P(Corruption, TruncatedAnywhereIsAnErrorNamingAnOffset) {
  std::vector<uint8_t> bytes = original();
  ASSERT_FALSE(bytes.empty());
  // Every byte for the small files, at least 400 points spread over the large.
  size_t step = bytes.size() <= 3000 ? 1 : bytes.size() / 400;
  for (size_t cut = 0; cut < bytes.size(); cut += step) {
    std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + cut);
    std::unique_ptr<uint8_t[]> exact(new uint8_t[cut ? cut : 1]);
    std::copy(prefix.begin(), prefix.end(), exact.get());
    StatusOr<MTree> tree = readBytecode(exact.get(), cut);
    ASSERT_FALSE(tree.isOk()) << "a prefix of " << cut << " bytes decoded";
    EXPECT_EQ(tree.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(tree.status().message().find("offset 0x"), std::string::npos)
        << tree.status().message();
  }
}

TEST_P(Corruption, BitFlipsAndByteOverwritesNeverCrash) {
  std::vector<uint8_t> bytes = original();
  ASSERT_FALSE(bytes.empty());
  std::mt19937 rng(0x5eed ^ static_cast<unsigned>(bytes.size()));
  std::uniform_int_distribution<size_t> position(0, bytes.size() - 1);
  std::uniform_int_distribution<int> bit(0, 7), value(0, 255), count(1, 4);
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<uint8_t> mutated = bytes;
    int n = count(rng);
    for (int i = 0; i < n; ++i) {
      size_t at = position(rng);
      if (trial % 2 == 0)
        mutated[at] ^= uint8_t(1u << bit(rng));
      else
        mutated[at] = uint8_t(value(rng));
    }
    readExpectingErrorOrTree(mutated, GetParam() + " trial " + std::to_string(trial));
  }
}

INSTANTIATE_TEST_SUITE_P(Zoo, Corruption, testing::ValuesIn(fixtureNames()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

TEST(Corruption, EmptyAndTinyInputs) {
  StatusOr<MTree> empty = readBytecode(nullptr, 0);
  ASSERT_FALSE(empty.isOk());
  EXPECT_EQ(empty.status().code(), StatusCode::kInvalidArgument);
  std::vector<uint8_t> text = {'M', 'L', 'I', 'R'};
  StatusOr<MTree> not_bytecode = readBytecode(text.data(), text.size());
  ASSERT_FALSE(not_bytecode.isOk());
  EXPECT_NE(not_bytecode.status().message().find("magic"), std::string::npos);
}

}  // namespace
}  // namespace jft::frontend
