// XLA_FLAGS parsing.
#include "pjrt/xla_flags.h"

#include <gtest/gtest.h>

namespace jft::pjrt {
namespace {

TEST(XlaFlags, ReadsDumpDirectoryAndKeepsUnknownFlags) {
  XlaFlags flags = parseXlaFlags(
      "  --xla_gpu_autotune_level=0\t--xla_dump_to=/tmp/dumps  --xla_foo\n");
  EXPECT_EQ(flags.dumpTo, "/tmp/dumps");
  ASSERT_EQ(flags.unknown.size(), 2u);
  EXPECT_EQ(flags.unknown[0], "--xla_gpu_autotune_level=0");
  EXPECT_EQ(flags.unknown[1], "--xla_foo");
}

TEST(XlaFlags, EmptyAndValuelessDump) {
  EXPECT_EQ(parseXlaFlags("").dumpTo, "");
  XlaFlags flags = parseXlaFlags("--xla_dump_to");
  EXPECT_EQ(flags.dumpTo, "");
  EXPECT_EQ(flags.unknown.size(), 1u);
}

TEST(XlaFlags, LastDumpFlagWins) {
  EXPECT_EQ(parseXlaFlags("--xla_dump_to=a --xla_dump_to=b").dumpTo, "b");
}

}  // namespace
}  // namespace jft::pjrt
