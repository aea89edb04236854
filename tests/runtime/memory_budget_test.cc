// Memory limits from JAX's settings and the accounting that enforces them.
#include "runtime/memory_budget.h"

#include <gtest/gtest.h>

namespace jft::runtime {
namespace {

TEST(MemoryLimit, IsTheFractionOfTotalMemoryForThePool) {
  MemoryOptions options;  // the runtime's own default: the whole device
  EXPECT_EQ(memoryLimit(options, 1000), 1000u);
  options = MemoryOptions::jaxDefaults();  // upstream's: 75 %
  EXPECT_EQ(memoryLimit(options, 1000), 750u);
  options.fraction = 0.25;
  EXPECT_EQ(memoryLimit(options, 1000), 250u);
  EXPECT_EQ(memoryLimit(options, uint64_t{144} << 30), uint64_t{36} << 30);
  options.fraction = 1.0;
  EXPECT_EQ(memoryLimit(options, 1000), 1000u);
}

TEST(MemoryLimit, PlatformAllocatorIsLimitedOnlyByTheDevice) {
  MemoryOptions options;
  options.allocator = MemoryOptions::Allocator::kPlatform;
  options.fraction = 0.25;
  EXPECT_EQ(memoryLimit(options, 1000), 1000u);
}

TEST(MemoryBudget, RefusesPastTheLimitWithResourceExhausted) {
  MemoryBudget budget;
  budget.setLimit(100);
  ASSERT_TRUE(budget.take(60, "GPU 0").isOk());
  Status full = budget.take(41, "GPU 0");
  EXPECT_EQ(full.code(), StatusCode::kResourceExhausted);
  EXPECT_NE(full.message().find("41 bytes on GPU 0"), std::string::npos)
      << full.message();
  EXPECT_NE(full.message().find("XLA_PYTHON_CLIENT_MEM_FRACTION"), std::string::npos);
  // A refusal counts nothing.
  EXPECT_EQ(budget.stats().bytes_in_use, 60);
  EXPECT_EQ(budget.stats().num_allocs, 1);
  ASSERT_TRUE(budget.take(40, "GPU 0").isOk());  // exactly the limit fits
  budget.give(60);
  ASSERT_TRUE(budget.take(50, "GPU 0").isOk());
  MemoryStats stats = budget.stats();
  EXPECT_EQ(stats.bytes_in_use, 90);
  EXPECT_EQ(stats.peak_bytes_in_use, 100);
  EXPECT_EQ(stats.num_allocs, 3);
  EXPECT_EQ(stats.largest_alloc, 60);
  EXPECT_EQ(stats.bytes_limit, 100);
  budget.resetPeak();
  EXPECT_EQ(budget.stats().peak_bytes_in_use, 90);
}

TEST(MemoryBudget, HugeRequestsDoNotOverflow) {
  MemoryBudget budget;
  budget.setLimit(uint64_t{1} << 40);
  EXPECT_EQ(budget.take(~uint64_t{0} >> 1, "GPU 0").code(),
            StatusCode::kResourceExhausted);
  EXPECT_EQ(budget.take(~uint64_t{0}, "GPU 0").code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(budget.stats().bytes_in_use, 0);
}

}  // namespace
}  // namespace jft::runtime
