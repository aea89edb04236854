#include "codegen/ttir/matmul_emitter.h"

#include <optional>
#include <utility>

#include "codegen/ttir/dot_tiles.h"
#include "codegen/ttir/index_space.h"
#include "codegen/ttir/kernel_emitter.h"
#include "codegen/ttir/tile_choice.h"
#include "fusion/matmul_form.h"

namespace jft::codegen::ttir {
namespace {

bool powerOfTwoAtLeast16(int64_t v) {
  return v >= 16 && (v & (v - 1)) == 0;
}

// tt.make_range and tt.dot need power-of-two extents of at least 16.
bool validTile(const MatmulTile& t) {
  return powerOfTwoAtLeast16(t.m) && powerOfTwoAtLeast16(t.n) &&
         powerOfTwoAtLeast16(t.k) && t.group_m >= 1 && t.num_warps >= 1 &&
         t.num_stages >= 1;
}

class MatmulKernel : KernelEmitter {
 public:
  MatmulKernel(const KernelInputs& in, const std::map<std::string, MatmulTile>& tiles)
      : KernelEmitter(in), tiles_(tiles) {}

  StatusOr<Launch> emit() {
    JFT_ASSIGN_OR_RETURN(const ir::Op* dot,
                         findProduct(function_, fusion_, ir::OpKind::DotGeneral, "dot"));
    std::string why;
    std::optional<fusion::MatmulForm> form = fusion::matmulFormOf(module_, *dot, &why);
    if (!form) return unimplemented(fusion_.name + ": " + why);
    form_ = *form;
    JFT_ASSIGN_OR_RETURN(lhs_, operandSource(module_, function_, fusion_,
                                             dot->operands[0], form_.input_precision));
    JFT_ASSIGN_OR_RETURN(rhs_, operandSource(module_, function_, fusion_,
                                             dot->operands[1], form_.input_precision));
    JFT_RETURN_IF_ERROR(checkProductOutputs(module_, fusion_, dot->results[0]));
    auto fixed = tiles_.empty() ? tiles_.end()
                                : tiles_.find(fusion::matmulSignature(module_, *dot));
    if (fixed != tiles_.end() && !validTile(fixed->second))
      return invalidArgument(fusion_.name + ": a fixed matmul tile " +
                             describeMatmulTile(fixed->second) +
                             " is not of powers of two >= 16");
    tile_ = fixed != tiles_.end() ? fixed->second
                                  : chooseMatmulTile(form_.batch, form_.m, form_.n,
                                                     form_.k, ir::bitWidth(form_.operand),
                                                     form_.input_precision == "ieee");
    IndexBuilder ix(w_, {tile_.m, tile_.n}, index_type_);
    DotTiles tiles(w_, ix, module_, function_, fusion_, signature_);
    ix_ = &ix;
    t_ = &tiles;
    const DotTiles::Program p = tiles.programTile(form_.batch, form_.m, form_.n, tile_);
    b_ = p.item;
    m_ = p.rows;
    n_ = p.cols;
    mask_m_ = p.mask_m;
    mask_n_ = p.mask_n;
    JFT_ASSIGN_OR_RETURN(const Value acc, kLoop());
    JFT_RETURN_IF_ERROR(epilogue(*dot, acc));
    return productLaunch(p.programs, tile_);
  }

 private:
  StatusOr<Value> kLoop() {
    IndexBuilder& ix = *ix_;
    DotTiles& tiles = *t_;
    // Loop-invariant parts of the addresses: batch item and rows/columns.
    const Value lhs_rows = ix.add(ix.splat(tiles.offsetOf(b_, form_.lhs_batch), {1, 1}),
                                  tiles.offsetOf(m_, form_.lhs_m));
    const Value rhs_cols = ix.add(ix.splat(tiles.offsetOf(b_, form_.rhs_batch), {1, 1}),
                                  tiles.offsetOf(n_, form_.rhs_n));
    const Value k_row = tiles.range2d(tile_.k, 1), k_col = tiles.range2d(tile_.k, 0);
    return tiles.kLoop(
        form_.k, tile_.k, form_.input_precision,
        [&](const Value& k0) -> StatusOr<std::pair<Value, Value>> {
          const Value ka = ix.add(ix.splat(k0, {1, tile_.k}), k_row);
          const Value kb = ix.add(ix.splat(k0, {tile_.k, 1}), k_col);
          const auto lhs = [&](const Value& lanes, const std::optional<Value>& mask_ka) {
            return tiles.loadOperand(lhs_,
                                     ix.add(lhs_rows, tiles.offsetOf(lanes, form_.lhs_k)),
                                     tiles.both(mask_m_, mask_ka), {tile_.m, tile_.k});
          };
          return tiles.stepTiles(ka, kb, form_.k, tile_, lhs,
                                 {rhs_, form_.rhs_k, rhs_cols, mask_n_});
        });
  }

  // The dot's value at the output tile (rounded to its result type), then
  // every output computed from it and stored.
  Status epilogue(const ir::Op& dot, const Value& acc) {
    IndexBuilder& ix = *ix_;
    const Value result = t_->round(acc, form_.result);
    const std::vector<int64_t>& dims = module_.typeOf(dot.results[0]).dims;
    const auto* dn =
        ir::findAttrAs<ir::DotDimensionNumbers>(dot.attrs, "dot_dimension_numbers");
    const size_t batch_rank = dn->lhs_batching_dims.size();
    const size_t m_rank = module_.typeOf(dot.operands[0]).dims.size() - batch_rank -
                          dn->lhs_contracting_dims.size();
    IndexSpace space;
    space.dims = dims;
    // Result dims [batch..., lhs free..., rhs free...]: each group's
    // components from its linear index, row-major.
    auto components = [&](const Value& linear, size_t from, size_t to, bool scalar) {
      int64_t inner = 1;
      for (size_t d = from; d < to; ++d) inner *= dims[d];
      bool leading = true;
      for (size_t d = from; d < to; ++d) {
        inner /= dims[d];
        Value c = linear;
        if (dims[d] == 1) {
          c = ix.indexConstant(0, ix.ones());
        } else {
          c = ix.divConst(linear, inner);
          if (!leading) c = ix.remConst(c, dims[d]);
          if (scalar) c = ix.splat(c, ix.ones());
          leading = false;
        }
        space.comps.emplace_back(c);
      }
    };
    components(b_, 0, batch_rank, true);
    components(m_, batch_rank, batch_rank + m_rank, false);
    components(n_, batch_rank + m_rank, dims.size(), false);
    space.linear =
        ix.add(ix.add(ix.splat(ix.scalarBinary("arith.muli", b_,
                                               ix.scalarConstant(form_.m * form_.n)),
                               ix.ones()),
                      ix.mulConst(m_, form_.n)),
               n_);
    return t_->storeOutputs(dot.results[0], std::move(space), result, mask_m_, mask_n_);
  }

  const std::map<std::string, MatmulTile>& tiles_;
  IndexBuilder* ix_ = nullptr;
  DotTiles* t_ = nullptr;
  fusion::MatmulForm form_;
  MatmulTile tile_;
  OperandSource lhs_, rhs_;
  Value b_, m_, n_;  // batch item (scalar), rows [BM, 1], columns [1, BN]
  std::optional<Value> mask_m_, mask_n_;
};

}  // namespace

StatusOr<Launch> emitMatmulKernel(const KernelInputs& in,
                                  const std::map<std::string, MatmulTile>& tiles) {
  return MatmulKernel(in, tiles).emit();
}

}  // namespace jft::codegen::ttir
