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

// Where both product families start: BLOCK_M and BLOCK_N the problem's
// extents as powers of two in [16, 64] under ieee, [16, 128] otherwise, and
// BLOCK_K at its cap: 32 bytes of K per row per stage for f32, 64 elements for
// 16-bit types (128x128 tiles then take 32 KiB of shared memory a stage
// either way), 16 under ieee.
MatmulTile productTile(int64_t m, int64_t n, int operand_bits, bool ieee) {
  MatmulTile t;
  const int64_t most = ieee ? 64 : 128;
  t.m = std::clamp<int64_t>(nextPow2(m), 16, most);
  t.n = std::clamp<int64_t>(nextPow2(n), 16, most);
  t.k = ieee ? 16 : (operand_bits == 16 ? 64 : 32);
  return t;
}

// Warps for the tile's size, and a pipeline once K takes several steps.
MatmulTile withWarpsAndStages(MatmulTile t, int64_t k) {
  t.num_warps = t.m * t.n >= 128 * 128 ? 8 : 4;
  t.num_stages = k > t.k ? 3 : 1;
  return t;
}

}  // namespace

int64_t loopElementsPerThread(int64_t body_weight) {
  int64_t per_thread = 8;
  while (per_thread > 1 && per_thread * body_weight > kLoopCodeBudget) per_thread /= 2;
  return per_thread;
}

LoopTile chooseLoopTile(int64_t outer, int64_t inner, bool flat, bool transposing,
                        int64_t body_weight) {
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
  const int64_t per_thread = loopElementsPerThread(body_weight);
  if (per_thread == 8) return t;
  // A heavy body: at most 8 warps of `per_thread` elements each; halve rows,
  // then columns.
  constexpr int64_t kMaxWarps = 8, kWarpThreads = 32;
  while (t.rows * t.cols > per_thread * kWarpThreads * kMaxWarps) {
    if (t.rows > 1) {
      t.rows /= 2;
    } else {
      t.cols /= 2;
    }
  }
  const int64_t threads = (t.rows * t.cols + per_thread - 1) / per_thread;
  const int64_t warps_needed = (threads + kWarpThreads - 1) / kWarpThreads;
  t.num_warps = static_cast<int>(std::min<int64_t>(
      std::max<int64_t>(warpsFor(t.rows * t.cols), warps_needed), kMaxWarps));
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

MatmulTile chooseMatmulTile(int64_t batch, int64_t m, int64_t n, int64_t k,
                            int operand_bits, bool ieee) {
  MatmulTile t = productTile(m, n, operand_bits, ieee);
  t.k = std::clamp<int64_t>(nextPow2(k), 16, t.k);
  // Halve the larger side while the grid leaves most SMs idle.
  auto programs = [&] { return batch * ((m + t.m - 1) / t.m) * ((n + t.n - 1) / t.n); };
  while (programs() < kFillPrograms / 4 && std::max(t.m, t.n) > 64) {
    if (t.m >= t.n)
      t.m /= 2;
    else
      t.n /= 2;
  }
  return withWarpsAndStages(t, k);
}

MatmulTile chooseConvTile(int64_t m, int64_t n, int64_t k, int64_t channels,
                          int operand_bits, bool ieee) {
  MatmulTile t = productTile(m, n, operand_bits, ieee);
  const int64_t cap = t.k;
  while (t.k > 16 && channels % t.k != 0) t.k /= 2;
  if (channels % t.k != 0) t.k = std::clamp<int64_t>(nextPow2(k), 16, cap);
  while ((m + t.m - 1) / t.m * ((n + t.n - 1) / t.n) < kFillPrograms / 4 && t.m > 64)
    t.m /= 2;
  return withWarpsAndStages(t, k);
}

std::string describeMatmulTile(const MatmulTile& tile) {
  return std::to_string(tile.m) + "x" + std::to_string(tile.n) + "x" +
         std::to_string(tile.k) + " w" + std::to_string(tile.num_warps) + " s" +
         std::to_string(tile.num_stages);
}

std::string describeTile(int64_t rows, int64_t cols) {
  return rows == 1 ? std::to_string(cols)
                   : std::to_string(rows) + "x" + std::to_string(cols);
}

}  // namespace jft::codegen::ttir
