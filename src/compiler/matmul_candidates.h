// The bounded set of ways to run one dot that the autotuner measures: the
// library route (cuBLASLt) and a few tiles of the TTIR matmul family around
// the heuristic's, chosen by the problem's size and operand type.
//
// TTIR tiles: the heuristic's own (chooseMatmulTile) first, then a fixed list
// per operand kind (16-bit: BLOCK_K 64 and 32; f32 under TF32: BLOCK_K 32 and
// 16; f32 "ieee": 64-and-smaller tiles of BLOCK_K 16), with 4 warps, 8 for a
// 128x128 tile. Each is clamped to the problem (a block no larger than the
// next power of two of m, n or k, never below 16), duplicates dropped, at
// most kMaxTtirCandidates kept; pipeline stages 3 when K takes more than one
// step, else 1.
#pragma once

#include <string>
#include <vector>

#include "codegen/ttir/tile_choice.h"
#include "fusion/matmul_form.h"

namespace jft::compiler {

// Bumped whenever the list below changes: cached winners chosen among an
// older set are then measured again.
inline constexpr int kMatmulCandidateSetVersion = 1;
inline constexpr size_t kMaxTtirCandidates = 6;

struct MatmulCandidate {
  bool library = false;
  codegen::ttir::MatmulTile tile;  // TTIR candidates only
};

// "library" or "ttir 128x64x64 w4 s3".
std::string candidateName(const MatmulCandidate& candidate);

// The library first, then the TTIR tiles.
std::vector<MatmulCandidate> matmulCandidates(const fusion::MatmulForm& form);

}  // namespace jft::compiler
