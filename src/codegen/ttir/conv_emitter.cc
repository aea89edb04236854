#include "codegen/ttir/conv_emitter.h"

#include <optional>
#include <utility>
#include <vector>

#include "codegen/ttir/dot_tiles.h"
#include "codegen/ttir/index_space.h"
#include "codegen/ttir/kernel_emitter.h"
#include "codegen/ttir/tile_choice.h"
#include "fusion/conv_gemm_form.h"

namespace jft::codegen::ttir {
namespace {

class ConvKernel : KernelEmitter {
 public:
  using KernelEmitter::KernelEmitter;

  StatusOr<Launch> emit() {
    JFT_ASSIGN_OR_RETURN(
        const ir::Op* conv,
        findProduct(function_, fusion_, ir::OpKind::Convolution, "convolution"));
    std::string why;
    std::optional<fusion::ConvGemmForm> form =
        fusion::convGemmFormOf(module_, *conv, &why);
    if (!form) return unimplemented(fusion_.name + ": " + why);
    form_ = std::move(*form);
    JFT_ASSIGN_OR_RETURN(lhs_, operandSource(module_, function_, fusion_,
                                             conv->operands[0], form_.input_precision));
    JFT_ASSIGN_OR_RETURN(rhs_, operandSource(module_, function_, fusion_,
                                             conv->operands[1], form_.input_precision));
    JFT_RETURN_IF_ERROR(checkProductOutputs(module_, fusion_, conv->results[0]));
    tile_ = chooseConvTile(form_.m, form_.n, form_.k, form_.channels,
                           ir::bitWidth(form_.operand), form_.input_precision == "ieee");
    aligned_ = form_.channels % tile_.k == 0;
    IndexBuilder ix(w_, {tile_.m, tile_.n}, index_type_);
    DotTiles tiles(w_, ix, module_, function_, fusion_, signature_);
    ix_ = &ix;
    t_ = &tiles;
    const DotTiles::Program p = tiles.programTile(1, form_.m, form_.n, tile_);
    m_ = p.rows;
    n_ = p.cols;
    mask_m_ = p.mask_m;
    mask_n_ = p.mask_n;
    splitRows();
    JFT_ASSIGN_OR_RETURN(const Value acc, kLoop());
    JFT_RETURN_IF_ERROR(epilogue(*conv, acc));
    return productLaunch(p.programs, tile_);
  }

 private:
  const fusion::ConvForm& conv() const { return form_.conv; }

  // Each row m of the tile as the result's indices ([BM, 1]; none for a dim
  // of extent 1, whose index is 0), row-major over form_.m_dims.
  void splitRows() {
    IndexBuilder& ix = *ix_;
    const std::vector<int64_t>& dims = conv().out.dims;
    out_index_.assign(dims.size(), std::nullopt);
    int64_t inner = form_.m;
    bool leading = true;
    for (int64_t d : form_.m_dims) {
      const int64_t extent = dims[static_cast<size_t>(d)];
      inner /= extent;
      if (extent == 1) continue;
      Value c = ix.divConst(m_, inner);
      // The outermost component needs no remainder for in-range rows (and
      // the others are masked).
      if (!leading) c = ix.remConst(c, extent);
      leading = false;
      out_index_[static_cast<size_t>(d)] = c;
    }
  }

  std::optional<Value> outIndex(int64_t dim) const {
    return out_index_[static_cast<size_t>(dim)];
  }

  // The lhs offset of the rows' batch items, and for each spatial dim the
  // input coordinate of window position 0 (t_i), all loop-invariant.
  void hoistRows() {
    IndexBuilder& ix = *ix_;
    const std::vector<int64_t> strides = rowMajorStrides(conv().lhs.dims);
    if (std::optional<Value> b = outIndex(conv().dn.output_batch_dim))
      lhs_rows_ =
          ix.mulConst(*b, strides[static_cast<size_t>(conv().dn.input_batch_dim)]);
    start_.clear();
    for (int64_t i = 0; i < conv().spatial; ++i) {
      const size_t u = static_cast<size_t>(i);
      const int64_t lo = conv().pad_lo[u];
      if (std::optional<Value> o = outIndex(conv().dn.output_spatial_dims[u]))
        start_.push_back(ix.addConst(ix.mulConst(*o, conv().strides[u]), -lo));
      else
        start_.push_back(ix.indexConstant(-lo, ix.ones()));
    }
  }

  // The window position and input feature of the step's k lanes along
  // `axis` of the tile: `window[i]` for each spatial dim (none when the
  // window has extent 1) and the feature. Scalars splat to [1, 1] when the
  // step lies in one window position.
  struct KParts {
    std::vector<std::optional<Value>> window;
    Value channel;
  };

  // `k`: the step's k lanes ([1, BK]), used when the step is not aligned;
  // `lanes`: 0..BK-1 ([1, BK]).
  KParts splitK(const Value& k0, const Value& k, const Value& lanes) {
    IndexBuilder& ix = *ix_;
    const int64_t c = form_.channels;
    KParts parts;
    std::optional<Value> position;  // linear window position
    if (aligned_) {
      Value c0 = k0;
      if (c != form_.k) {
        c0 = ix.scalarBinary("arith.remsi", k0, ix.scalarConstant(c));
        position =
            ix.splat(ix.scalarBinary("arith.divsi", k0, ix.scalarConstant(c)), ix.ones());
      }
      parts.channel = ix.add(ix.splat(c0, lanes.shape), lanes);
    } else {
      parts.channel = c == form_.k ? k : ix.remConst(k, c);
      if (c != form_.k) position = ix.divConst(k, c);
    }
    int64_t inner = form_.k / c;
    bool leading = true;
    for (int64_t i = 0; i < conv().spatial; ++i) {
      const int64_t extent = conv().window(i);
      inner /= extent;
      if (extent == 1 || !position) {
        parts.window.emplace_back();
        continue;
      }
      Value w = ix.divConst(*position, inner);
      if (!leading) w = ix.remConst(w, extent);
      leading = false;
      parts.window.emplace_back(w);
    }
    return parts;
  }

  // The lhs tile's offsets and mask for the step (see the file comment).
  std::pair<Value, std::optional<Value>> lhsAddress(const KParts& k,
                                                    const std::optional<Value>& mask_k) {
    IndexBuilder& ix = *ix_;
    const fusion::ConvForm& f = conv();
    const std::vector<int64_t> strides = rowMajorStrides(f.lhs.dims);
    // Row terms first (when a step is one window position they are all
    // [BM, 1]), the channels last: one add over the whole tile.
    std::optional<Value> offset = lhs_rows_;
    std::optional<Value> mask = t_->both(mask_m_, mask_k);
    for (int64_t i = 0; i < f.spatial; ++i) {
      const size_t u = static_cast<size_t>(i);
      const int64_t window = f.window(i), ld = f.lhs_dilation[u];
      Value p = start_[u];
      if (const std::optional<Value>& w = k.window[u]) {
        Value wr = *w;
        if (f.reversal[u])
          wr = ix.binary("arith.subi", ix.indexConstant(window - 1, w->shape), *w);
        p = ix.add(p, ix.mulConst(wr, f.rhs_dilation[u]));
      }
      const int64_t highest = (f.outSpatial(i) - 1) * f.strides[u] +
                              (window - 1) * f.rhs_dilation[u] - f.pad_lo[u];
      const int64_t limit = (f.inSpatial(i) - 1) * ld;
      if (f.pad_lo[u] > 0) mask = t_->both(mask, ix.compareConst("sge", p, 0));
      if (highest > limit) mask = t_->both(mask, ix.compareConst("sle", p, limit));
      if (ld > 1) {
        mask = t_->both(mask, ix.compareConst("eq", ix.remConst(p, ld), 0));
        p = ix.divConst(p, ld);
      }
      const Value term =
          ix.mulConst(p, strides[static_cast<size_t>(f.dn.input_spatial_dims[u])]);
      offset = offset ? ix.add(*offset, term) : term;
    }
    const Value channels =
        ix.mulConst(k.channel, strides[static_cast<size_t>(f.dn.input_feature_dim)]);
    return {offset ? ix.add(*offset, channels) : channels, mask};
  }

  StatusOr<Value> kLoop() {
    IndexBuilder& ix = *ix_;
    DotTiles& tiles = *t_;
    hoistRows();
    const Value rhs_cols = tiles.offsetOf(n_, form_.rhs_n);
    const Value k_row = tiles.range2d(tile_.k, 1), k_col = tiles.range2d(tile_.k, 0);
    return tiles.kLoop(
        form_.k, tile_.k, form_.input_precision,
        [&](const Value& k0) -> StatusOr<std::pair<Value, Value>> {
          const Value kb = ix.add(ix.splat(k0, {tile_.k, 1}), k_col);
          // An aligned step needs no k lanes (and K is a multiple of BK).
          const Value ka = aligned_ ? k_row : ix.add(ix.splat(k0, {1, tile_.k}), k_row);
          const auto lhs = [&](const Value& lanes, const std::optional<Value>& mask_ka) {
            const auto [offset, mask] = lhsAddress(splitK(k0, lanes, k_row), mask_ka);
            return tiles.loadOperand(lhs_, offset, mask, {tile_.m, tile_.k});
          };
          return tiles.stepTiles(ka, kb, form_.k, tile_, lhs,
                                 {rhs_, form_.rhs_k, rhs_cols, mask_n_});
        });
  }

  // The rounded accumulator at the output tile's indices in the result's
  // layout, then every output of the group.
  Status epilogue(const ir::Op& op, const Value& acc) {
    IndexBuilder& ix = *ix_;
    const Value result = t_->round(acc, form_.result);
    const std::vector<int64_t>& dims = conv().out.dims;
    const int64_t feature = conv().dn.output_feature_dim;
    IndexSpace space;
    space.dims = dims;
    for (int64_t d = 0; d < static_cast<int64_t>(dims.size()); ++d) {
      if (d == feature)
        space.comps.emplace_back(
            dims[static_cast<size_t>(d)] == 1 ? ix.indexConstant(0, ix.ones()) : n_);
      else
        space.comps.emplace_back(outIndex(d) ? *outIndex(d)
                                             : ix.indexConstant(0, ix.ones()));
    }
    // m is row-major over the other dims in memory order: with the feature
    // dim innermost or outermost, the linear index is one multiply-add.
    if (feature == static_cast<int64_t>(dims.size()) - 1)
      space.linear = ix.add(ix.mulConst(m_, form_.n), n_);
    else if (feature == 0)
      space.linear = ix.add(ix.mulConst(n_, form_.m), m_);
    return t_->storeOutputs(op.results[0], std::move(space), result, mask_m_, mask_n_);
  }

  IndexBuilder* ix_ = nullptr;
  DotTiles* t_ = nullptr;
  fusion::ConvGemmForm form_;
  MatmulTile tile_;
  bool aligned_ = false;  // every K step lies in one window position
  OperandSource lhs_, rhs_;
  Value m_, n_;  // rows [BM, 1], columns [1, BN]
  std::optional<Value> mask_m_, mask_n_;
  std::vector<std::optional<Value>> out_index_;  // per result dim, [BM, 1]
  std::optional<Value> lhs_rows_;                // batch offsets, [BM, 1]
  std::vector<Value> start_;                     // t_i per spatial dim
};

}  // namespace

StatusOr<Launch> emitConvKernel(const KernelInputs& in) {
  return ConvKernel(in).emit();
}

}  // namespace jft::codegen::ttir
