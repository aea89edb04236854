#include "compiler/matmul_candidates.h"

#include <algorithm>
#include <array>

#include "support/int_lists.h"

namespace jft::compiler {
namespace {

using codegen::ttir::MatmulTile;

struct Shape {
  int64_t m, n, k;
};

// Shapes common in Triton's matmul tutorials and XLA's default search space
// at this scale: the 128x128 tile reuses operands most, 64-wide ones fill the
// device when the grid is small, a shorter BLOCK_K leaves room for stages.
constexpr std::array kSixteenBit = {Shape{128, 128, 64}, Shape{128, 64, 64},
                                    Shape{64, 128, 64},  Shape{64, 64, 64},
                                    Shape{128, 128, 32}, Shape{64, 64, 32}};
constexpr std::array kTf32 = {Shape{128, 128, 32}, Shape{128, 64, 32}, Shape{64, 128, 32},
                              Shape{64, 64, 32}, Shape{64, 64, 16}};
// FMA products: registers bound the tile (chooseMatmulTile caps it at 64).
constexpr std::array kIeee = {Shape{64, 64, 16}, Shape{64, 32, 16}, Shape{32, 64, 16},
                              Shape{32, 32, 16}};

int64_t fit(int64_t block, int64_t extent) {
  return std::clamp<int64_t>(block, 16, std::max<int64_t>(16, nextPow2(extent)));
}

bool sameTile(const MatmulTile& a, const MatmulTile& b) {
  return a.m == b.m && a.n == b.n && a.k == b.k && a.group_m == b.group_m &&
         a.num_warps == b.num_warps && a.num_stages == b.num_stages;
}

}  // namespace

std::string candidateName(const MatmulCandidate& candidate) {
  if (candidate.library) return "library";
  return "ttir " + codegen::ttir::describeMatmulTile(candidate.tile);
}

std::vector<MatmulCandidate> matmulCandidates(const fusion::MatmulForm& form) {
  const bool ieee = form.input_precision == "ieee";
  const int bits = ir::bitWidth(form.operand);
  std::vector<MatmulTile> tiles = {
      codegen::ttir::chooseMatmulTile(form.batch, form.m, form.n, form.k, bits, ieee)};
  auto add = [&](const Shape& shape) {
    MatmulTile t;
    t.m = fit(shape.m, form.m);
    t.n = fit(shape.n, form.n);
    t.k = fit(shape.k, form.k);
    t.num_warps = t.m * t.n >= 128 * 128 ? 8 : 4;
    t.num_stages = form.k > t.k ? 3 : 1;
    for (const MatmulTile& seen : tiles)
      if (sameTile(seen, t)) return;
    if (tiles.size() < kMaxTtirCandidates) tiles.push_back(t);
  };
  if (ieee) {
    for (const Shape& s : kIeee) add(s);
  } else if (bits == 16) {
    for (const Shape& s : kSixteenBit) add(s);
  } else {
    for (const Shape& s : kTf32) add(s);
  }
  std::vector<MatmulCandidate> out = {MatmulCandidate{true, {}}};
  for (const MatmulTile& t : tiles) out.push_back({false, t});
  return out;
}

}  // namespace jft::compiler
