// Greedy-by-size arena packing.
#include "compiler/buffer_assignment.h"

#include <algorithm>
#include <numeric>

namespace jft::compiler {
namespace {

uint64_t roundUp(uint64_t bytes) {
  return (bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
}

bool overlapInTime(const BufferRequest& a, const BufferRequest& b) {
  return a.first <= b.last && b.first <= a.last;
}

}  // namespace

ArenaLayout packArena(const std::vector<BufferRequest>& requests) {
  ArenaLayout layout;
  layout.offsets.assign(requests.size(), 0);
  std::vector<size_t> order(requests.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (requests[a].bytes != requests[b].bytes)
      return requests[a].bytes > requests[b].bytes;
    return requests[a].first < requests[b].first;
  });

  struct Placed {
    uint64_t begin, end;  // end rounded up to the alignment
  };
  std::vector<size_t> placed;  // request indices already given an offset
  for (size_t index : order) {
    const BufferRequest& request = requests[index];
    if (request.bytes == 0) continue;
    std::vector<Placed> busy;
    for (size_t other : placed)
      if (overlapInTime(request, requests[other]))
        busy.push_back({layout.offsets[other],
                        layout.offsets[other] + roundUp(requests[other].bytes)});
    std::sort(busy.begin(), busy.end(),
              [](const Placed& a, const Placed& b) { return a.begin < b.begin; });

    const uint64_t need = roundUp(request.bytes);
    uint64_t best_offset = 0;
    uint64_t best_gap = UINT64_MAX;
    uint64_t cursor = 0;  // the lowest address above every busy block seen so far
    for (const Placed& block : busy) {
      if (block.begin > cursor) {
        uint64_t gap = block.begin - cursor;
        if (gap >= need && gap < best_gap) {
          best_gap = gap;
          best_offset = cursor;
        }
      }
      cursor = std::max(cursor, block.end);
    }
    if (best_gap == UINT64_MAX) best_offset = cursor;
    layout.offsets[index] = best_offset;
    layout.size = std::max(layout.size, best_offset + need);
    placed.push_back(index);
  }
  return layout;
}

}  // namespace jft::compiler
