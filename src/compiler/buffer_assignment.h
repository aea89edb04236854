// Packing temporaries into one arena by liveness.
//
// Each request is a buffer live from thunk `first` to thunk `last`, both
// inclusive: a kernel that reads one value and writes another at the same
// thunk keeps them apart, since a kernel may read after it has begun writing.
// Two requests share memory only when their lifetimes do not overlap.
//
// Greedy by size (largest first), each placed in the smallest gap between
// the time-overlapping buffers already placed, or above them all. Not optimal,
// never worse than placing everything side by side.
#pragma once

#include <cstdint>
#include <vector>

namespace jft::compiler {

inline constexpr uint64_t kArenaAlignment = 256;

struct BufferRequest {
  uint64_t bytes = 0;  // 0 needs no memory (offset 0)
  int first = 0;       // thunk index of the definition
  int last = 0;        // thunk index of the last use; >= first
};

struct ArenaLayout {
  std::vector<uint64_t> offsets;  // per request, multiples of kArenaAlignment
  uint64_t size = 0;              // arena bytes
};

ArenaLayout packArena(const std::vector<BufferRequest>& requests);

}  // namespace jft::compiler
