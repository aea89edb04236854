#include "codegen/ttir/attention_emitter.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "codegen/ttir/combiner_op.h"
#include "codegen/ttir/dot_tiles.h"
#include "codegen/ttir/elemental.h"
#include "codegen/ttir/index_space.h"
#include "codegen/ttir/kernel_emitter.h"
#include "codegen/ttir/memory_access.h"
#include "codegen/ttir/tf32_rounding.h"
#include "codegen/ttir/tile_ops.h"
#include "fusion/attention_form.h"
#include "fusion/use_graph.h"
#include "support/int_lists.h"

namespace jft::codegen::ttir {
namespace {

int64_t paddedExtent(int64_t v) {
  int64_t p = 16;  // tt.dot's smallest extent
  while (p < v) p *= 2;
  return p;
}

// -inf as an f32 constant of TTIR text (a hex literal: exact, no parsing of
// "inf").
constexpr const char* kMinusInf = "0xFF800000";

class AttentionKernel : KernelEmitter {
 public:
  explicit AttentionKernel(const KernelInputs& in) : KernelEmitter(in) {}

  StatusOr<Launch> emit() {
    JFT_RETURN_IF_ERROR(readForm());
    const fusion::AttentionForm& f = form_;
    tile_ =
        chooseAttentionTile(f.qk.m, f.qk.n, f.qk.k, f.pv.n, ir::bitWidth(f.qk.operand));
    IndexBuilder ix(w_, {tile_.m, tile_.n}, index_type_);
    DotTiles tiles(w_, ix, module_, function_, fusion_, signature_);
    ix_ = &ix;
    t_ = &tiles;

    item_ = programId("y");
    const Value row0 =
        ix.scalarBinary("arith.muli", programId("x"), ix.scalarConstant(tile_.m));
    rows_ = ix.add(ix.splat(row0, {tile_.m, 1}), tiles.range2d(tile_.m, 0));
    mask_q_ = tiles.edgeMask(rows_, f.qk.m, tile_.m);
    const Value d = tiles.range2d(tile_.d, 1);
    const std::optional<Value> mask_d = tiles.edgeMask(d, f.qk.k, tile_.d);

    // The Q tile, loaded once.
    const Value q_offset =
        ix.add(ix.add(ix.splat(tiles.offsetOf(item_, f.qk.lhs_batch), {1, 1}),
                      tiles.offsetOf(rows_, f.qk.lhs_m)),
               tiles.offsetOf(d, f.qk.lhs_k));
    JFT_ASSIGN_OR_RETURN(
        const Value q,
        tiles.loadOperand(q_, q_offset, tiles.both(mask_q_, mask_d), {tile_.m, tile_.d}));
    JFT_ASSIGN_OR_RETURN(const Carried last, keyLoop(q, d, mask_d, row0));
    return store(last);
  }

 private:
  struct Carried {
    Value m, l, acc;
  };

  Status readForm() {
    const ir::Op* pv = nullptr;
    size_t pv_at = 0;
    for (size_t at : fusion_.ops) {
      const ir::Op& op = function_.body.ops.at(at);
      if (op.kind != ir::OpKind::DotGeneral || fusion_.outputs.size() != 1 ||
          op.results[0] != fusion_.outputs[0])
        continue;
      pv = &op;
      pv_at = at;
    }
    if (pv == nullptr)
      return unimplemented(fusion_.name +
                           ": an attention group whose output is not a dot");
    const fusion::UseGraph uses(function_.body);
    std::string why;
    std::optional<fusion::AttentionForm> form =
        fusion::attentionFormOf(module_, function_.body, uses, pv_at, &why);
    if (!form) return unimplemented(fusion_.name + ": " + why);
    form_ = std::move(*form);
    const ir::Op& qk = function_.body.ops[form_.qk_dot];
    JFT_ASSIGN_OR_RETURN(q_, operandSource(module_, function_, fusion_, qk.operands[0],
                                           form_.qk.input_precision));
    JFT_ASSIGN_OR_RETURN(k_, operandSource(module_, function_, fusion_, qk.operands[1],
                                           form_.qk.input_precision));
    JFT_ASSIGN_OR_RETURN(v_, operandSource(module_, function_, fusion_, pv->operands[1],
                                           form_.pv.input_precision));
    if (q_.convert != nullptr || k_.convert != nullptr || v_.convert != nullptr)
      return unimplemented(fusion_.name +
                           ": an attention operand read through a convert");
    return Status::ok();
  }

  Value programId(const char* axis) {
    Value pid = w_.op(std::string("tt.get_program_id ") + axis + " : i32", {}, "i32");
    if (index_type_ == "i32") return pid;
    return w_.op("arith.extsi " + pid.name + " : i32 to " + index_type_, {}, index_type_);
  }

  Value f32Constant(const std::string& text, const std::vector<int64_t>& shape) {
    return w_.op("arith.constant dense<" + text + "> : " + tensorType(shape, "f32"),
                 shape, "f32");
  }
  Value floatOp(const std::string& op, const Value& a, const Value& b) {
    IndexBuilder& ix = *ix_;
    const std::vector<int64_t> shape = IndexBuilder::join(a.shape, b.shape);
    const Value x = ix.broadcast(a, shape), y = ix.broadcast(b, shape);
    return w_.op(op + " " + x.name + ", " + y.name + " : " + x.type, shape, "f32");
  }
  Value exp(const Value& x) {
    return w_.op("math.exp " + x.name + " : " + x.type, x.shape, "f32");
  }
  // `x` [BM, BN] folded along the keys with `op`: [BM, 1].
  StatusOr<Value> rowFold(const Value& x, const std::string& op) {
    JFT_ASSIGN_OR_RETURN(
        std::vector<Value> r,
        combinerOp(w_, "tt.reduce", {x}, 1,
                   [&](const std::vector<Value>& a,
                       const std::vector<Value>& b) -> StatusOr<std::vector<Value>> {
                     return std::vector<Value>{w_.op(
                         op + " " + a[0].name + ", " + b[0].name + " : f32", {}, "f32")};
                   }));
    return expandDims(w_, r[0], 1);
  }
  Value dot(const Value& a, const Value& b, const Value& c,
            const std::string& precision) {
    return w_.op("tt.dot " + a.name + ", " + b.name + ", " + c.name +
                     ", inputPrecision = " + precision + " : " + a.type + " * " + b.type +
                     " -> " + c.type,
                 c.shape, "f32");
  }

  // The key loop's end: Tk, or with a causal mask the first key no row of
  // the block keeps (the last row is min(row0 + BM, Tq) - 1).
  Value keyEnd(const Value& row0) {
    IndexBuilder& ix = *ix_;
    const int64_t tk = form_.qk.n;
    if (!form_.causal_offset) return ix.scalarConstant(tk);
    const Value last_row_end = ix.scalarBinary(
        "arith.minsi", ix.scalarBinary("arith.addi", row0, ix.scalarConstant(tile_.m)),
        ix.scalarConstant(form_.qk.m));
    const Value end = *form_.causal_offset == 0
                          ? last_row_end
                          : ix.scalarBinary("arith.addi", last_row_end,
                                            ix.scalarConstant(*form_.causal_offset));
    return ix.scalarBinary("arith.minsi", end, ix.scalarConstant(tk));
  }

  // The scores' batch dims from the item (loop-invariant: made once).
  void batchComponents() {
    IndexBuilder& ix = *ix_;
    const std::vector<int64_t>& dims = module_.typeOf(form_.scores).dims;
    const size_t batch_rank = dims.size() - 2;
    int64_t inner = 1;
    for (size_t d = 0; d < batch_rank; ++d) inner *= dims[d];
    bool leading = true;
    for (size_t d = 0; d < batch_rank; ++d) {
      inner /= dims[d];
      Value c = ix.indexConstant(0, ix.ones());
      if (dims[d] != 1) {
        Value s = ix.scalarBinary("arith.divsi", item_, ix.scalarConstant(inner));
        if (!leading) s = ix.scalarBinary("arith.remsi", s, ix.scalarConstant(dims[d]));
        c = ix.splat(s, ix.ones());
        leading = false;
      }
      batch_comps_.push_back(c);
    }
  }

  // The score tile's index space over the scores' dims: the batch dims from
  // the item, then the rows and the key columns.
  int scoreSpace(const Value& cols) {
    IndexSpace space;
    space.dims = module_.typeOf(form_.scores).dims;
    for (const Value& c : batch_comps_) space.comps.emplace_back(c);
    space.comps.emplace_back(rows_);
    space.comps.emplace_back(cols);
    return ix_->intern(std::move(space));
  }

  StatusOr<Carried> keyLoop(const Value& q, const Value& d,
                            const std::optional<Value>& mask_d, const Value& row0) {
    IndexBuilder& ix = *ix_;
    DotTiles& tiles = *t_;
    const fusion::AttentionForm& f = form_;
    const std::vector<int64_t> row_shape = {tile_.m, 1}, acc_shape = {tile_.m, tile_.dv};
    const Value m0 = f32Constant(kMinusInf, row_shape);
    const Value l0 = f32Constant("0.000000e+00", row_shape);
    const Value acc0 = f32Constant("0.000000e+00", acc_shape);
    const Value dv = tiles.range2d(tile_.dv, 1);
    const std::optional<Value> mask_dv = tiles.edgeMask(dv, f.pv.n, tile_.dv);
    // Loop-invariant parts of the K and V addresses.
    const Value k_base = ix.add(ix.splat(tiles.offsetOf(item_, f.qk.rhs_batch), {1, 1}),
                                tiles.offsetOf(d, f.qk.rhs_k));
    const Value v_base = ix.add(ix.splat(tiles.offsetOf(item_, f.pv.rhs_batch), {1, 1}),
                                tiles.offsetOf(dv, f.pv.rhs_n));
    const Value end = keyEnd(row0);
    batchComponents();

    const std::string result = w_.freshName(), k0 = w_.freshName();
    const std::string m = w_.freshName(), l = w_.freshName(), acc = w_.freshName();
    const std::string types = m0.type + ", " + l0.type + ", " + acc0.type;
    w_.open(result + ":3 = scf.for " + k0 + " = " + ix.scalarConstant(0).name + " to " +
            end.name + " step " + ix.scalarConstant(tile_.n).name + " iter_args(" + m +
            " = " + m0.name + ", " + l + " = " + l0.name + ", " + acc + " = " +
            acc0.name + ") -> (" + types + ") : " + index_type_ + " {");
    // Values made inside the loop do not dominate what follows it.
    const IndexBuilder::State saved = ix.save();
    const Value k_scalar{k0, index_type_, {}, index_type_};
    const Carried in{Value{m, m0.type, row_shape, "f32"},
                     Value{l, l0.type, row_shape, "f32"},
                     Value{acc, acc0.type, acc_shape, "f32"}};
    StatusOr<Carried> out = step(q, k_scalar, in, k_base, v_base, mask_d, mask_dv);
    if (!out.isOk()) return out.status();
    w_.line("scf.yield " + out->m.name + ", " + out->l.name + ", " + out->acc.name +
            " : " + types);
    w_.close("}");
    ix.restore(saved);
    return Carried{Value{result + "#0", m0.type, row_shape, "f32"},
                   Value{result + "#1", l0.type, row_shape, "f32"},
                   Value{result + "#2", acc0.type, acc_shape, "f32"}};
  }

  // One block of BN keys.
  StatusOr<Carried> step(const Value& q, const Value& k0, const Carried& in,
                         const Value& k_base, const Value& v_base,
                         const std::optional<Value>& mask_d,
                         const std::optional<Value>& mask_dv) {
    IndexBuilder& ix = *ix_;
    DotTiles& tiles = *t_;
    const fusion::AttentionForm& f = form_;
    const Value cols = ix.add(ix.splat(k0, {1, tile_.n}), tiles.range2d(tile_.n, 1));
    const Value keys = ix.add(ix.splat(k0, {tile_.n, 1}), tiles.range2d(tile_.n, 0));
    const std::optional<Value> mask_cols = tiles.edgeMask(cols, f.qk.n, tile_.n);
    const std::optional<Value> mask_keys = tiles.edgeMask(keys, f.qk.n, tile_.n);

    // s = q . k^T: K loaded as [BN, D] (rows of keys, contiguous along D in
    // the usual layout) and transposed in registers.
    JFT_ASSIGN_OR_RETURN(
        const Value k,
        tiles.loadOperand(k_, ix.add(k_base, tiles.offsetOf(keys, f.qk.rhs_n)),
                          tiles.both(mask_keys, mask_d), {tile_.n, tile_.d}));
    const Value kt =
        w_.op("tt.trans " + k.name + " {order = array<i32: 1, 0>} : " + k.type + " -> " +
                  tensorType({tile_.d, tile_.n}, k.scalar),
              {tile_.d, tile_.n}, k.scalar);
    const Value zero = f32Constant("0.000000e+00", {tile_.m, tile_.n});
    const Value s = tiles.round(dot(q, kt, zero, f.qk.input_precision), f.qk.result);

    // x: the pattern's ops on s at the tile's positions.
    Elemental elemental(ix, module_, fusion_, function_, signature_.inputs);
    const int space = scoreSpace(cols);
    elemental.define(f.scores, space, s);
    JFT_ASSIGN_OR_RETURN(Value x, elemental.emit(f.logits, space));
    x = ix.broadcast(x, {tile_.m, tile_.n});
    if (mask_cols) x = ix.select(*mask_cols, x, f32Constant(kMinusInf, x.shape));

    // Online softmax.
    JFT_ASSIGN_OR_RETURN(const Value block_max, rowFold(x, "arith.maximumf"));
    const Value m_new = floatOp("arith.maximumf", in.m, block_max);
    const Value is_empty =
        w_.op("arith.cmpf oeq, " + m_new.name + ", " +
                  f32Constant(kMinusInf, m_new.shape).name + " : " + m_new.type,
              m_new.shape, "i1");
    const Value shift =
        ix.select(is_empty, f32Constant("0.000000e+00", m_new.shape), m_new);
    const Value p = exp(floatOp("arith.subf", x, shift));
    const Value alpha = exp(floatOp("arith.subf", in.m, shift));
    JFT_ASSIGN_OR_RETURN(const Value p_sum, rowFold(p, "arith.addf"));
    const Value l_new = floatOp("arith.addf", floatOp("arith.mulf", in.l, alpha), p_sum);

    // acc = acc * alpha + p . v, p in V's type (as the pattern's convert).
    JFT_ASSIGN_OR_RETURN(
        const Value v,
        tiles.loadOperand(v_, ix.add(v_base, tiles.offsetOf(keys, f.pv.rhs_k)),
                          tiles.both(mask_keys, mask_dv), {tile_.n, tile_.dv}));
    Value p_in = tiles.round(p, f.pv.operand);
    if (f.pv.operand == ir::ElementType::F32 && f.pv.input_precision == "tf32")
      p_in = roundToTf32(w_, p_in);
    const Value scaled = floatOp("arith.mulf", in.acc, alpha);
    const Value acc = dot(p_in, v, scaled, f.pv.input_precision);
    return Carried{m_new, l_new, acc};
  }

  // out = acc / l in the pv dot's result type, at [item][row][dv].
  StatusOr<Launch> store(const Carried& last) {
    IndexBuilder& ix = *ix_;
    DotTiles& tiles = *t_;
    const fusion::AttentionForm& f = form_;
    const Value out = tiles.round(floatOp("arith.divf", last.acc, last.l), f.pv.result);
    const Value dv = tiles.range2d(tile_.dv, 1);
    const std::optional<Value> mask_dv = tiles.edgeMask(dv, f.pv.n, tile_.dv);
    const Value offset =
        ix.add(ix.add(ix.splat(ix.scalarBinary("arith.muli", item_,
                                               ix.scalarConstant(f.pv.m * f.pv.n)),
                               {1, 1}),
                      ix.mulConst(rows_, f.pv.n)),
               dv);
    const std::vector<int64_t> shape = {tile_.m, tile_.dv};
    const Value address =
        pointerTile(w_, signature_.outputs[0], f.pv.result, ix.broadcast(offset, shape));
    storeTile(ix, f.pv.result, address, out, tiles.both(mask_q_, mask_dv));

    Launch launch;
    launch.grid = {static_cast<uint32_t>(ceilDiv(f.qk.m, tile_.m)),
                   static_cast<uint32_t>(f.qk.batch), 1};
    launch.num_warps = tile_.num_warps;
    launch.num_stages = tile_.num_stages;
    launch.tile = std::to_string(tile_.m) + "x" + std::to_string(tile_.n) + "x" +
                  std::to_string(tile_.d);
    return launch;
  }

  fusion::AttentionForm form_;
  AttentionTile tile_;
  OperandSource q_, k_, v_;
  IndexBuilder* ix_ = nullptr;
  DotTiles* t_ = nullptr;
  Value item_, rows_;               // batch item (scalar), query rows [BM, 1]
  std::vector<Value> batch_comps_;  // the item's index along each batch dim
  std::optional<Value> mask_q_;
};

}  // namespace

AttentionTile chooseAttentionTile(int64_t tq, int64_t tk, int64_t d, int64_t dv,
                                  int operand_bits) {
  AttentionTile t;
  t.d = paddedExtent(d);
  t.dv = paddedExtent(dv);
  const bool wide = std::max(t.d, t.dv) > 128 || operand_bits > 16;
  t.m = wide ? 64 : 128;
  t.n = std::max(t.d, t.dv) > 128 ? 32 : 64;
  t.num_stages = std::max(t.d, t.dv) > 128 ? 2 : 3;
  t.m = std::min(t.m, paddedExtent(tq));
  t.n = std::min(t.n, paddedExtent(tk));
  t.num_warps = t.m >= 128 ? 8 : 4;
  return t;
}

StatusOr<Launch> emitAttentionKernel(const KernelInputs& in) {
  return AttentionKernel(in).emit();
}

}  // namespace jft::codegen::ttir
