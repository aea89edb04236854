// Arena packing on synthetic lifetimes, checked pairwise by brute force.
#include "compiler/buffer_assignment.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace jft::compiler {
namespace {

uint64_t rounded(uint64_t bytes) {
  return (bytes + 255) / 256 * 256;
}

// Every property a layout must have, whatever the packing strategy.
void expectValid(const std::vector<BufferRequest>& requests, const ArenaLayout& layout) {
  ASSERT_EQ(layout.offsets.size(), requests.size());
  uint64_t sum = 0;
  for (size_t i = 0; i < requests.size(); ++i) {
    EXPECT_EQ(layout.offsets[i] % kArenaAlignment, 0u) << i;
    EXPECT_LE(layout.offsets[i] + requests[i].bytes, layout.size) << i;
    sum += rounded(requests[i].bytes);
    for (size_t j = i + 1; j < requests.size(); ++j) {
      const BufferRequest& a = requests[i];
      const BufferRequest& b = requests[j];
      bool live_together = a.first <= b.last && b.first <= a.last;
      bool share_bytes = layout.offsets[i] < layout.offsets[j] + b.bytes &&
                         layout.offsets[j] < layout.offsets[i] + a.bytes;
      if (a.bytes == 0 || b.bytes == 0) continue;
      EXPECT_FALSE(live_together && share_bytes)
          << "requests " << i << " [" << a.first << "," << a.last << "] and " << j << " ["
          << b.first << "," << b.last << "] overlap in memory";
    }
  }
  EXPECT_LE(layout.size, sum);
  // No layout can be smaller than the bytes live at the busiest thunk.
  int end = 0;
  for (const BufferRequest& r : requests) end = std::max(end, r.last);
  for (int t = 0; t <= end; ++t) {
    uint64_t live = 0;
    for (const BufferRequest& r : requests)
      if (r.first <= t && t <= r.last) live += rounded(r.bytes);
    EXPECT_GE(layout.size, live) << "thunk " << t;
  }
}

TEST(PackArena, EmptyAndZeroSized) {
  EXPECT_EQ(packArena({}).size, 0u);
  ArenaLayout layout = packArena({{0, 0, 5}, {0, 1, 2}});
  EXPECT_EQ(layout.size, 0u);
  EXPECT_EQ(layout.offsets, (std::vector<uint64_t>{0, 0}));
}

TEST(PackArena, SimultaneouslyLiveBuffersAreSideBySide) {
  std::vector<BufferRequest> requests = {{100, 0, 3}, {1000, 1, 2}, {256, 2, 3}};
  ArenaLayout layout = packArena(requests);
  expectValid(requests, layout);
  EXPECT_EQ(layout.size, 256u + 1024u + 256u);
}

TEST(PackArena, DeadBuffersAreReused) {
  // A chain: each value dies where the next is born plus one, so one slot
  // of the largest size serves all.
  std::vector<BufferRequest> requests = {{4096, 0, 1}, {1000, 2, 3}, {4000, 4, 5}};
  ArenaLayout layout = packArena(requests);
  expectValid(requests, layout);
  EXPECT_EQ(layout.size, 4096u);
  EXPECT_EQ(layout.offsets, (std::vector<uint64_t>{0, 0, 0}));
}

TEST(PackArena, LifetimesAreInclusive) {
  // The second is born at the thunk that last reads the first: both are live
  // during that kernel.
  std::vector<BufferRequest> requests = {{512, 0, 1}, {512, 1, 2}};
  ArenaLayout layout = packArena(requests);
  expectValid(requests, layout);
  EXPECT_EQ(layout.size, 1024u);
}

TEST(PackArena, SmallBufferFillsAGapBetweenLiveOnes) {
  // a and c stay live throughout; b dies at 1 and leaves a hole that d fits.
  std::vector<BufferRequest> requests = {
      {1024, 0, 9}, {2048, 0, 1}, {1024, 0, 9}, {1500, 2, 9}};
  ArenaLayout layout = packArena(requests);
  expectValid(requests, layout);
  EXPECT_EQ(layout.size, 4096u);
}

TEST(PackArena, RandomLifetimesStayDisjointAndReuseMemory) {
  std::mt19937 random(1234);
  int reused = 0;
  for (int round = 0; round < 200; ++round) {
    std::vector<BufferRequest> requests;
    int count = 1 + static_cast<int>(random() % 40);
    for (int i = 0; i < count; ++i) {
      int first = static_cast<int>(random() % 30);
      int last = first + static_cast<int>(random() % 6);
      uint64_t bytes = random() % 5 == 0 ? 0 : 1 + random() % 20000;
      requests.push_back({bytes, first, last});
    }
    ArenaLayout layout = packArena(requests);
    expectValid(requests, layout);
    uint64_t sum = 0;
    for (const BufferRequest& r : requests) sum += rounded(r.bytes);
    if (layout.size < sum) ++reused;
  }
  EXPECT_GT(reused, 150);
}

}  // namespace
}  // namespace jft::compiler
