// Tile sizes and warp counts of every kernel family, in one place.
//
// Heuristics: a tile of a few thousand elements keeps enough loads in flight
// per program while the grid still fills the device; extents are powers of
// two because tt.make_range requires them. The matmul family's tile may
// instead be measured (the compiler's autotuner fixes it through
// EmitOptions::matmul_tiles).
#pragma once

#include <cstdint>
#include <string>

namespace jft::codegen::ttir {

struct LoopTile {
  int64_t rows = 1;  // BR; 1 for a flat (1D) tile
  int64_t cols = 1;  // BC, or the flat block
  int num_warps = 4;
};

// `outer` x `inner`: the output viewed as rows of its last dim (flat: outer
// is 1 and inner the element count). `transposing`: the group reads along
// another axis than it writes, so the tile is kept square-ish. `body_weight`
// (loopBodyWeight) caps the elements each thread computes: Triton unrolls the
// body once per element a thread holds, so a long body of inlined math
// library calls at 8 elements per thread makes a kernel that LLVM and ptxas
// take seconds to minutes to compile and gains nothing at run time (such a
// body is bound by arithmetic, not by the loads that wide threads batch).
LoopTile chooseLoopTile(int64_t outer, int64_t inner, bool flat, bool transposing,
                        int64_t body_weight = 0);

// Elements per thread a loop body of this weight may have: 8 for a light
// body, down to 1 once the body's weight (ops, math library calls counted
// as kMathCallWeight) times the elements reaches kLoopCodeBudget.
inline constexpr int64_t kMathCallWeight = 8;
inline constexpr int64_t kLoopCodeBudget = 256;
int64_t loopElementsPerThread(int64_t body_weight);

struct ReductionTile {
  int64_t kept = 1;     // BO: kept-index lanes per program
  int64_t reduced = 1;  // BK: reduced-index lanes per step
  bool looped = false;  // reduce in chunks of BK with an scf.for
  int num_warps = 4;
};

// `kept` x `reduced` elements; `minor`: the reduced dims are the trailing
// ones (a row reduction, contiguous along k); `whole_row`: the group needs
// the whole reduced extent in registers (values of the full shape computed
// from a reduce, or stored), so no loop is allowed.
ReductionTile chooseReductionTile(int64_t kept, int64_t reduced, bool minor,
                                  bool whole_row);

// A looped reduction whose kept tiles alone would leave most of the device
// idle (a column sum of 16384 x 4096 is 32 programs) is split: `chunks`
// programs per kept tile each reduce `chunk` consecutive reduced positions
// (a multiple of the step) into scratch, and a second kernel reduces those
// partials. chunks == 1: no split.
struct ReductionSplit {
  int64_t chunks = 1;
  int64_t chunk = 0;
};

// Programs that keep an H200-class device (132 SMs) busy, a few per SM.
inline constexpr int64_t kFillPrograms = 528;

ReductionSplit chooseReductionSplit(int64_t kept, int64_t reduced,
                                    const ReductionTile& tile);
// The finishing kernel's tile: kept lanes by nextPow2(chunks) partials.
ReductionTile chooseSplitFinishTile(int64_t kept, int64_t chunks);

// Rows that fit one program without a loop.
inline constexpr int64_t kMaxRowElements = 16384;

// The matmul family: BLOCK_M x BLOCK_N output tiles, K walked BLOCK_K at a
// time; programs of one batch item ordered in groups of `group_m` tile rows
// so that neighbouring programs share operand tiles in L2.
struct MatmulTile {
  int64_t m = 16, n = 16, k = 16;
  int64_t group_m = 8;
  int num_warps = 4;
  int num_stages = 3;  // software pipelining of the K loop's loads
};

// `operand_bits`: 16 or 32; `ieee`: an f32 product without TF32, which Triton
// runs on FMA units (smaller tiles keep its registers in bounds).
// Every extent is a power of two >= 16 (tt.dot's smallest tile).
MatmulTile chooseMatmulTile(int64_t batch, int64_t m, int64_t n, int64_t k,
                            int operand_bits, bool ieee);

// The conv family (conv_emitter.h): tiles of its implicit product, m x n
// with k = window positions x `channels` input features. BLOCK_M up to 128
// (64 under ieee), BLOCK_N = nextPow2(n) within [16, 128] (64 under ieee),
// BLOCK_K the largest of 64 (16-bit operands; 32 for f32, 16 for ieee), 32
// and 16 that divides `channels`, so each K step reads one window position
// (scalar window arithmetic, contiguous channels); when none divides it,
// nextPow2(k) within [16, that cap] with the K tail masked. BLOCK_M halves
// (not below 64) while the grid holds fewer than kFillPrograms / 4 programs;
// 8 warps for 128 x 128 tiles, else 4; 3 stages when K takes more than one
// step. First guesses, as the matmul family's.
MatmulTile chooseConvTile(int64_t m, int64_t n, int64_t k, int64_t channels,
                          int operand_bits, bool ieee);

// "128x64x32 w4 s3": BLOCK_M x BLOCK_N x BLOCK_K, warps, pipeline stages.
std::string describeMatmulTile(const MatmulTile& tile);

std::string describeTile(int64_t rows, int64_t cols);  // "1024", "32x128"

}  // namespace jft::codegen::ttir
