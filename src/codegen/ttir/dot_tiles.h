// What the product families (matmul_emitter.h, conv_emitter.h) share: a
// kernel computing BLOCK_M x BLOCK_N tiles of a product by tt.dot over K
// tiles, then an elementwise epilogue on the rounded accumulator.
//
//  - programTile: the program id split into (batch item, tile row, tile
//    column), tile rows grouped by MatmulTile::group_m so that neighbouring
//    programs share operand tiles in L2 (Triton's matmul tutorial order),
//    with the tile's edge masks and the launch's program count;
//  - loadOperand: an operand tile from a fusion input at computed offsets,
//    masked (zeros), converted when a convert of the group feeds the
//    product, and rounded to TF32 when the product reads f32 under tf32
//    (tf32_rounding.h);
//  - kLoop: the scf.for over K in BLOCK_K steps accumulating tt.dot in f32;
//    the family's body loads the two tiles of each step;
//  - round / storeOutputs: the accumulator rounded to the product's result
//    type (as unfused StableHLO would), then every output of the group
//    computed from it through the elemental emitter at the output tile's
//    index space and stored with that space's masks.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "codegen/ttir/index_space.h"
#include "codegen/ttir/kernel_signature.h"
#include "codegen/ttir/tile_choice.h"
#include "codegen/ttir/ttir_writer.h"
#include "fusion/fusion.h"
#include "fusion/matmul_form.h"
#include "ir/module.h"
#include "support/status.h"

namespace jft::codegen::ttir {

// Where a product operand comes from: a fusion input, loaded as its own
// element type and, when a convert of the group feeds the product, converted
// after.
struct OperandSource {
  size_t input = 0;
  ir::ElementType loaded = ir::ElementType::F32;
  const ir::Op* convert = nullptr;
  // An f32 operand of a tf32 product: the MMA would truncate it where cuBLAS
  // rounds to nearest, so the loaded tile is rounded first. Values converted
  // from a float of 16 bits or fewer already fit TF32's 10 mantissa bits.
  bool round_to_tf32 = false;
};

// The group's one op of `kind` (`what` names it in errors: "dot").
StatusOr<const ir::Op*> findProduct(const ir::Function& function,
                                    const fusion::Fusion& fusion, ir::OpKind kind,
                                    const std::string& what);
// UNIMPLEMENTED unless `operand` is an input or a convert of one.
// `input_precision`: the product's tt.dot inputPrecision.
StatusOr<OperandSource> operandSource(const ir::Module& module,
                                      const ir::Function& function,
                                      const fusion::Fusion& fusion, ir::ValueId operand,
                                      const std::string& input_precision);
// UNIMPLEMENTED unless every output of the group has `product`'s shape.
Status checkProductOutputs(const ir::Module& module, const fusion::Fusion& fusion,
                           ir::ValueId product);
// `programs` programs of `tile` along grid x.
Launch productLaunch(int64_t programs, const MatmulTile& tile);

class DotTiles {
 public:
  DotTiles(TtirWriter& writer, IndexBuilder& index, const ir::Module& module,
           const ir::Function& function, const fusion::Fusion& fusion,
           const KernelSignature& signature)
      : w_(writer),
        ix_(index),
        module_(module),
        function_(function),
        fusion_(fusion),
        signature_(signature) {}

  struct Program {
    Value item;                           // batch item, scalar
    Value rows;                           // [BM, 1]: the tile's m indices
    Value cols;                           // [1, BN]: the tile's n indices
    std::optional<Value> mask_m, mask_n;  // rows below m, columns below n
    int64_t programs = 0;                 // items x tile rows x tile columns
  };
  // The output tile of this program in `items` products of m x n.
  Program programTile(int64_t items, int64_t m, int64_t n, const MatmulTile& tile);

  // The memory offset of linear index `i` (any shape, index type) through
  // `map` (fusion/matmul_form.h).
  Value offsetOf(const Value& i, const fusion::IndexMap& map);
  // 0..n-1 along `axis` of a 2D tensor ([n, 1] or [1, n]), index type.
  Value range2d(int64_t n, int axis);
  // The operand tile at `offset` (broadcast to `shape`), zero where `mask`
  // is false, converted when a convert feeds the product, rounded to TF32
  // when `source.round_to_tf32`.
  StatusOr<Value> loadOperand(const OperandSource& source, const Value& offset,
                              const std::optional<Value>& mask,
                              const std::vector<int64_t>& shape);
  // The rhs as every K step reads it: W[k][n] in place through `k_map`, at
  // the columns' offsets `cols` ([1, BN], masked by `mask_n`).
  struct RhsColumns {
    const OperandSource& source;
    const fusion::IndexMap& k_map;
    const Value& cols;
    const std::optional<Value>& mask_n;
  };
  // The family's [BM, BK] lhs tile at the step's k lanes `ka` ([1, BK],
  // masked by `mask_ka`): each family addresses its lhs its own way.
  using LhsTile = std::function<StatusOr<Value>(const Value& ka,
                                                const std::optional<Value>& mask_ka)>;
  // One K step's two tiles (what kLoop's body returns): the lanes `ka`
  // ([1, BK]) and `kb` ([BK, 1]) masked below `k`, the lhs tile from `lhs`,
  // then the [BK, BN] rhs tile at rows `kb`.
  StatusOr<std::pair<Value, Value>> stepTiles(const Value& ka, const Value& kb, int64_t k,
                                              const MatmulTile& tile, const LhsTile& lhs,
                                              const RhsColumns& rhs);
  std::optional<Value> both(const std::optional<Value>& a, const std::optional<Value>& b);
  // The lanes of `lanes` (m, n or k indices) below `extent`, or nothing when
  // blocks of `block` cover it exactly.
  std::optional<Value> edgeMask(const Value& lanes, int64_t extent, int64_t block);

  // Emits `for k0 = 0 to k step block_k` with an f32 accumulator of the
  // index builder's tile shape; `body(k0)` (k0 a scalar of the index type)
  // writes the step's [BM, BK] and [BK, BN] tiles. Values made inside the
  // loop are forgotten after it. Returns the final accumulator.
  using StepTiles = std::function<StatusOr<std::pair<Value, Value>>(const Value& k0)>;
  StatusOr<Value> kLoop(int64_t k, int64_t block_k, const std::string& input_precision,
                        const StepTiles& body);

  // The accumulator rounded to `result` (unchanged for f32).
  Value round(const Value& acc, ir::ElementType result);
  // Every output of the group computed from `product`'s tile `value` at
  // `space` (the product's dims) and stored.
  Status storeOutputs(ir::ValueId product, int space, const Value& value);
  // The same at the output tile's `space`, bounded by its edge masks.
  Status storeOutputs(ir::ValueId product, IndexSpace space, const Value& value,
                      const std::optional<Value>& mask_m,
                      const std::optional<Value>& mask_n);

 private:
  TtirWriter& w_;
  IndexBuilder& ix_;
  const ir::Module& module_;
  const ir::Function& function_;
  const fusion::Fusion& fusion_;
  const KernelSignature& signature_;
};

}  // namespace jft::codegen::ttir
