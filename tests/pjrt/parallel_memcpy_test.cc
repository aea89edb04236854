// parallelMemcpy against std::memcmp of the source, around its thread split.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "runtime/gpu/pinned_staging.h"

namespace jft::runtime::gpu {
namespace {

TEST(ParallelMemcpy, CopiesEveryByteAtAnySize) {
  for (uint64_t size : {uint64_t{0}, uint64_t{1}, uint64_t{4} << 20,
                        (uint64_t{4} << 20) + 3, (uint64_t{33} << 20) + 7}) {
    std::vector<unsigned char> src(size), dst(size + 1, 0xEE);
    for (uint64_t i = 0; i < size; ++i) src[i] = static_cast<unsigned char>(i * 131 + 7);
    parallelMemcpy(dst.data(), src.data(), size);
    EXPECT_TRUE(std::equal(src.begin(), src.end(), dst.begin())) << size;
    EXPECT_EQ(dst[size], 0xEE) << "wrote past the end at size " << size;
  }
}

}  // namespace
}  // namespace jft::runtime::gpu
