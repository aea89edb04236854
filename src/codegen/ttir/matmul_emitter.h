// The matmul family: one dot_general (fusion/matmul_form.h) as a tiled tt.dot
// kernel, with its operand converts and elementwise epilogue fused.
//
// Program p computes one BLOCK_M x BLOCK_N tile of [batch][m][n]: p splits
// into (batch item, tile) and the tile into (tile row, tile column) in
// groups of MatmulTile::group_m tile rows (neighbouring programs share
// operand tiles in L2). An scf.for walks K in BLOCK_K steps, loading the
// operand tiles through their index maps (in place, any layout) with masks
// (and zeros) past M, N and K, converting a loaded tile when a convert feeds
// the dot, and accumulating tt.dot in f32 (inputPrecision from the form).
// After the loop the accumulator is rounded to the dot's result type, as
// unfused StableHLO would, and the epilogue runs on it through the elemental
// emitter at the output tile's index space (bias vectors, residuals and other
// inputs read at that tile's indices); the group's outputs, all of the dot's
// shape, are stored with the tile's masks.
#pragma once

#include <map>
#include <string>

#include "codegen/ttir/kernel_inputs.h"
#include "codegen/ttir/tile_choice.h"
#include "support/status.h"

namespace jft::codegen::ttir {

// UNIMPLEMENTED when the group is not a matmul group as the planner forms
// them (one dot_general, operands read from inputs or through one convert of
// an input, outputs of the dot's shape). `tiles`: tiles fixed per dot
// signature (EmitOptions::matmul_tiles; INVALID_ARGUMENT for one whose extents
// are not powers of two >= 16); other dots get chooseMatmulTile's.
StatusOr<Launch> emitMatmulKernel(const KernelInputs& in,
                                  const std::map<std::string, MatmulTile>& tiles = {});

}  // namespace jft::codegen::ttir
