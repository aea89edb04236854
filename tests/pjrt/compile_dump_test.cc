// The dump writer, read back from disk.
#include "pjrt/compile_dump.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace jft::pjrt {
namespace {

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(CompileDump, WritesProgramAndOptions) {
  auto directory = std::filesystem::temp_directory_path() /
                   ("jft_dump_test_" +
                    std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::remove_all(directory);
  CompileDump dump((directory / "nested").string());
  ASSERT_TRUE(dump.enabled());
  std::string program("ML\xEFR\0bytes", 10);
  auto first = dump.write("mlir", program, "options-proto");
  ASSERT_TRUE(first.isOk()) << first.status().toString();
  EXPECT_EQ(readFile(*first), program);
  std::string optionsPath = first->substr(0, first->size() - 5) + ".compile_options.pb";
  EXPECT_EQ(readFile(optionsPath), "options-proto");
  auto second = dump.write("mlir", "x", "");
  ASSERT_TRUE(second.isOk());
  EXPECT_NE(*first, *second);
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(directory / "nested")) {
    EXPECT_EQ(entry.path().string().find(".tmp"), std::string::npos);
    ++files;
  }
  EXPECT_EQ(files, 4u);
  std::filesystem::remove_all(directory);
}

TEST(CompileDump, DisabledWithoutDirectory) {
  EXPECT_FALSE(CompileDump("").enabled());
}

TEST(CompileDump, UnwritableDirectoryIsAnError) {
  CompileDump dump("/proc/jft_cannot_write_here");
  EXPECT_FALSE(dump.write("mlir", "x", "y").isOk());
}

}  // namespace
}  // namespace jft::pjrt
