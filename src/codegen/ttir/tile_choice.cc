#include "codegen/ttir/tile_choice.h"

#include <algorithm>

#include "codegen/ttir/index_space.h"

namespace jft::codegen::ttir {

namespace {

// Triton's softmax tutorial uses the same steps: more warps once a program
// holds more than a couple of thousand elements.
int warpsFor(int64_t elements) {
  if (elements >= 8192) return 16;
  if (elements >= 2048) return 8;
  if (elements >= 256) return 4;
  return elements >= 64 ? 2 : 1;
}

}  // namespace

LoopTile chooseLoopTile(int64_t outer, int64_t inner, bool flat, bool transposing) {
  LoopTile t;
  if (flat) {
    t.cols = std::min<int64_t>(nextPow2(inner), 1024);
  } else if (transposing) {
    t.cols = std::min<int64_t>(nextPow2(inner), 64);
    t.rows = std::min<int64_t>(nextPow2(outer), 64);
  } else {
    t.cols = std::min<int64_t>(nextPow2(inner), 1024);
    t.rows = std::min<int64_t>(nextPow2(outer), std::max<int64_t>(1, 2048 / t.cols));
  }
  t.num_warps = std::min(warpsFor(t.rows * t.cols), 8);
  return t;
}

ReductionTile chooseReductionTile(int64_t kept, int64_t reduced, bool minor,
                                  bool whole_row) {
  ReductionTile t;
  const int64_t row = nextPow2(reduced);
  if (minor || whole_row) {
    if (row <= kMaxRowElements && (whole_row || row <= 4096)) {
      t.reduced = row;
    } else {
      t.reduced = 2048;
      t.looped = true;
    }
    t.kept = std::min<int64_t>(nextPow2(kept), std::max<int64_t>(1, 2048 / t.reduced));
  } else {
    // A column reduction: many kept lanes along the contiguous axis, a short
    // chunk of the reduced extent per step.
    t.kept = std::min<int64_t>(nextPow2(kept), 128);
    t.reduced = std::min<int64_t>(row, 4096 / t.kept);
    t.looped = t.reduced < row;
  }
  t.num_warps = warpsFor(t.kept * t.reduced);
  return t;
}

ReductionSplit chooseReductionSplit(int64_t kept, int64_t reduced,
                                    const ReductionTile& tile) {
  ReductionSplit split;
  // Below a few MB a single launch costs less than two.
  constexpr int64_t kMinSplitElements = int64_t{1} << 20;
  if (!tile.looped || kept * reduced < kMinSplitElements) return split;
  const int64_t programs = (kept + tile.kept - 1) / tile.kept;
  if (programs * 2 > kFillPrograms) return split;
  // Each chunk walks at least a few steps, so the partials stay a small
  // fraction of the input; at most 1024 partials per kept position.
  constexpr int64_t kMinSteps = 4, kMaxChunks = 1024;
  const int64_t steps = (reduced + tile.reduced - 1) / tile.reduced;
  // A power of two at most the programs wanted: the finishing tile holds
  // nextPow2(chunks) lanes.
  const int64_t wanted = (kFillPrograms + programs - 1) / programs;
  int64_t chunks = nextPow2(wanted);
  if (chunks > wanted) chunks /= 2;
  while (chunks > 1 && (chunks > steps / kMinSteps || chunks > kMaxChunks)) chunks /= 2;
  if (chunks < 2) return split;
  const int64_t chunk_steps = (steps + chunks - 1) / chunks;
  split.chunk = chunk_steps * tile.reduced;
  split.chunks = (steps + chunk_steps - 1) / chunk_steps;
  if (split.chunks < 2) return ReductionSplit{};
  return split;
}

ReductionTile chooseSplitFinishTile(int64_t kept, int64_t chunks) {
  ReductionTile t;
  t.reduced = nextPow2(chunks);
  t.kept = std::min<int64_t>(nextPow2(kept), std::max<int64_t>(1, 2048 / t.reduced));
  t.num_warps = warpsFor(t.kept * t.reduced);
  return t;
}

std::string describeTile(int64_t rows, int64_t cols) {
  return rows == 1 ? std::to_string(cols)
                   : std::to_string(rows) + "x" + std::to_string(cols);
}

}  // namespace jft::codegen::ttir
