#include "codegen/ttir/scan_emitter.h"

#include <algorithm>
#include <functional>

#include "codegen/ttir/combiner_op.h"
#include "codegen/ttir/complex_emitter.h"
#include "codegen/ttir/elemental.h"
#include "codegen/ttir/elementwise.h"
#include "codegen/ttir/index_space.h"
#include "codegen/ttir/kernel_emitter.h"
#include "codegen/ttir/tile_ops.h"
#include "fusion/scan_form.h"

namespace jft::codegen::ttir {

namespace {

class ScanKernel : KernelEmitter {
 public:
  using KernelEmitter::KernelEmitter;

  StatusOr<Launch> emit();

 private:
  // A value of the scan is `parts_` real values: one, or (re, im) of a
  // complex one (complex_emitter.h: a cumulative sum or product, whose
  // combiner is then the complex add or multiply on the parts).
  using Parts = std::vector<Value>;
  // The scan's combiner on (earlier, later) operands of any one shape.
  StatusOr<Parts> combine(const Parts& earlier, const Parts& later) {
    if (parts_ == 2)  // add and multiply commute: the order does not matter
      return emitComplexCombiner(w_, module_, *form_.body, earlier, later);
    std::vector<Value> args = form_.composite ? std::vector<Value>{later[0], earlier[0]}
                                              : std::vector<Value>{earlier[0], later[0]};
    JFT_ASSIGN_OR_RETURN(std::vector<Value> out,
                         emitScalarRegion(w_, module_, *form_.body, args));
    return Parts{out.at(0)};
  }
  // `earlier` ([BR, 1]) combined into every lane of `later` (a tile). Region
  // constants are written as scalars, so a region holding one combines the
  // joined pair through a size-2 tt.reduce instead of lane by lane.
  StatusOr<Parts> combineTile(const Parts& earlier, const Parts& later);
  // Per row: the lane with the largest position < n (lanes past it carry -1).
  StatusOr<Parts> lastLane(const Parts& tile, const Value& lane);
  // The input at positions `lane` ([1, BK]) of the program's rows.
  StatusOr<Parts> chunk(const Value& lane);
  int fullSpace(const Value& lane);

  fusion::ScanForm form_;
  const ir::Op* op_ = nullptr;
  std::vector<int64_t> full_;
  int64_t n_ = 1, outer_ = 1, inner_ = 1, br_ = 1, bk_ = 1;
  std::optional<IndexBuilder> ix_;
  std::optional<Elemental> el_;
  Value row_;
  std::vector<Value> row_bounds_;
  bool has_constant_ = false;
  int parts_ = 1;
};

StatusOr<ScanKernel::Parts> ScanKernel::combineTile(const Parts& earlier,
                                                    const Parts& later) {
  Parts e;
  for (size_t p = 0; p < earlier.size(); ++p)
    e.push_back(ix_->broadcast(earlier[p], later[p].shape));
  if (!has_constant_) return combine(e, later);
  // Only real scans hold constants (a complex combiner is one add or multiply).
  std::vector<int64_t> shape = later[0].shape;
  shape.push_back(2);
  const Value pair = w_.op("tt.join " + e[0].name + ", " + later[0].name + " : " +
                               e[0].type + " -> " + tensorType(shape, e[0].scalar),
                           shape, e[0].scalar);
  return combinerOp(w_, "tt.reduce", {pair}, 2,
                    [&](const std::vector<Value>& a, const std::vector<Value>& b) {
                      return combine(a, b);
                    });
}

StatusOr<ScanKernel::Parts> ScanKernel::lastLane(const Parts& tile, const Value& lane) {
  const size_t n = tile.size();
  std::vector<Value> operands = tile;
  operands.push_back(ix_->broadcast(lane, tile[0].shape));
  JFT_ASSIGN_OR_RETURN(
      std::vector<Value> r,
      combinerOp(
          w_, "tt.reduce", operands, 1,
          [&](const std::vector<Value>& a,
              const std::vector<Value>& b) -> StatusOr<std::vector<Value>> {
            const Value later = w_.op(
                "arith.cmpi sgt, " + a[n].name + ", " + b[n].name + " : " + a[n].type, {},
                "i1");
            std::vector<Value> picked;
            for (size_t i = 0; i <= n; ++i)
              picked.push_back(w_.op("arith.select " + later.name + ", " + a[i].name +
                                         ", " + b[i].name + " : " + a[i].type,
                                     {}, a[i].scalar));
            return picked;
          }));
  Parts out;
  for (size_t i = 0; i < n; ++i) out.push_back(expandDims(w_, r[i], 1));
  return out;
}

int ScanKernel::fullSpace(const Value& lane) {
  IndexBuilder& ix = *ix_;
  // Position along the axis: the lane, or n-1-lane for a reverse scan.
  Value p = form_.reverse
                ? ix.binary("arith.subi", ix.indexConstant(n_ - 1, lane.shape), lane)
                : lane;
  Value o = row_, i = ix.indexConstant(0, ix.ones());
  if (inner_ > 1) {
    o = ix.divConst(row_, inner_);
    i = ix.remConst(row_, inner_);
  }
  IndexSpace s;
  s.dims = full_;
  s.linear = ix.add(ix.add(ix.mulConst(o, n_ * inner_), ix.mulConst(p, inner_)), i);
  s.bounds = row_bounds_;
  if (n_ % bk_ != 0) s.bounds.push_back(ix.compareConst("slt", lane, n_));
  return ix.intern(std::move(s));
}

StatusOr<ScanKernel::Parts> ScanKernel::chunk(const Value& lane) {
  Parts out;
  const int space = fullSpace(lane);
  for (int p = 0; p < parts_; ++p) {
    JFT_ASSIGN_OR_RETURN(Value x, el_->emitPart(form_.input, space, p));
    out.push_back(ix_->broadcast(x, ix_->tile()));
  }
  return out;
}

StatusOr<Launch> ScanKernel::emit() {
  if (fusion_.ops.empty()) return unimplemented(fusion_.name + ": an empty scan group");
  op_ = &function_.body.ops.at(fusion_.ops.back());
  std::optional<fusion::ScanForm> form = fusion::scanFormOf(module_, *op_);
  if (!form)
    return unimplemented(fusion_.name +
                         ": the scan group's root is not a cumulative "
                         "reduction");
  form_ = *form;
  parts_ = ir::isComplex(module_.typeOf(form_.input).element) ? 2 : 1;
  for (const ir::Op& inner : form_.body->ops)
    has_constant_ = has_constant_ || inner.kind == ir::OpKind::Constant;
  full_ = module_.typeOf(form_.input).dims;
  const size_t axis = static_cast<size_t>(form_.axis);
  n_ = full_.at(axis);
  for (size_t d = 0; d < full_.size(); ++d) {
    if (d < axis) outer_ *= full_[d];
    if (d > axis) inner_ *= full_[d];
  }
  const int64_t rows = outer_ * inner_;
  // A row of up to 1024 lanes per step; about 4096 elements per program.
  bk_ = std::min<int64_t>(nextPow2(n_), 1024);
  br_ = std::min<int64_t>(std::max<int64_t>(4096 / bk_, 1), nextPow2(rows));
  const bool looped = n_ > bk_;
  const int64_t programs = (rows + br_ - 1) / br_;

  ix_.emplace(w_, std::vector<int64_t>{br_, bk_}, index_type_);
  IndexBuilder& ix = *ix_;
  el_.emplace(ix, module_, fusion_, function_, signature_.inputs);
  const Value pid = ix.programId();
  row_ = ix.range(0);
  if (programs > 1)
    row_ = ix.add(
        ix.splat(ix.scalarBinary("arith.muli", pid, ix.scalarConstant(br_)), {br_, 1}),
        row_);
  if (rows % br_ != 0) row_bounds_.push_back(ix.compareConst("slt", row_, rows));

  // The rows' own index (F without the axis), for the init and the carry.
  std::vector<int64_t> kept = full_;
  kept.erase(kept.begin() + form_.axis);
  IndexSpace ks;
  ks.dims = kept;
  ks.linear = row_;
  ks.bounds = row_bounds_;
  if (kept.size() == 1) ks.comps = {row_};
  const int kept_space = kept.empty() ? el_->scalarSpace() : ix.intern(std::move(ks));
  Parts init;
  for (int p = 0; p < parts_; ++p) {
    JFT_ASSIGN_OR_RETURN(Value v, el_->emitPart(form_.init, kept_space, p));
    init.push_back(ix.broadcast(v, {br_, 1}));
  }

  const ir::ElementType element = module_.typeOf(op_->results[0]).element;
  auto storeParts = [&](const std::string& param, const Parts& v, int space) {
    for (int p = 0; p < parts_; ++p) el_->store(param, element, v[p], space, p);
  };
  auto scanChunk = [&](const Value& lane, const Parts& carry) -> StatusOr<Parts> {
    JFT_ASSIGN_OR_RETURN(Parts x, chunk(lane));
    JFT_ASSIGN_OR_RETURN(
        Parts s, combinerOp(w_, "tt.scan", x, 1,
                            [&](const std::vector<Value>& a,
                                const std::vector<Value>& b) { return combine(a, b); }));
    JFT_ASSIGN_OR_RETURN(Parts out, combineTile(carry, s));
    storeParts(signature_.outputs.at(0), out, fullSpace(lane));
    return out;
  };
  // Positions past the row are -1, so the last stored lane wins.
  auto maskedLane = [&](const Value& lane) {
    if (n_ % bk_ == 0) return lane;
    return ix.select(ix.compareConst("slt", lane, n_), lane,
                     ix.indexConstant(-1, lane.shape));
  };

  // Which outputs: the scan (result 0, stored per chunk) and the final carry.
  bool scan_out = false;
  std::optional<size_t> carry_out;
  for (size_t i = 0; i < fusion_.outputs.size(); ++i) {
    if (fusion_.outputs[i] == op_->results[0] && i == 0) {
      scan_out = true;
    } else if (op_->results.size() > 1 && fusion_.outputs[i] == op_->results[1]) {
      carry_out = i;
    } else {
      return unimplemented(fusion_.name +
                           ": a scan kernel stores only its scan's results");
    }
  }
  if (!scan_out)
    return unimplemented(fusion_.name +
                         ": a scan kernel whose scan is not its first "
                         "output");
  Parts carry = init;
  if (!looped) {
    const Value lane = ix.range(1);
    JFT_ASSIGN_OR_RETURN(Parts out, scanChunk(lane, init));
    if (carry_out) {
      JFT_ASSIGN_OR_RETURN(carry, lastLane(out, maskedLane(lane)));
    }
  } else {
    const Value lower = ix.scalarConstant(0), upper = ix.scalarConstant(n_),
                step = ix.scalarConstant(bk_);
    const std::string name = w_.freshName(), k0 = w_.freshName();
    std::string iter, types;
    Parts accs;
    for (int p = 0; p < parts_; ++p) {
      accs.push_back(Value{w_.freshName(), init[p].type, {br_, 1}, init[p].scalar});
      iter += (p ? ", " : "") + accs[p].name + " = " + init[p].name;
      types += (p ? ", " : "") + init[p].type;
    }
    const std::string count = parts_ > 1 ? ":" + std::to_string(parts_) : "";
    w_.open(name + count + " = scf.for " + k0 + " = " + lower.name + " to " + upper.name +
            " step " + step.name + " iter_args(" + iter + ") -> (" + types +
            ") : " + index_type_ + " {");
    const Elemental::State saved = el_->save();
    const Value lane =
        ix.add(ix.splat(Value{k0, index_type_, {}, index_type_}, {1, bk_}), ix.range(1));
    JFT_ASSIGN_OR_RETURN(Parts out, scanChunk(lane, accs));
    JFT_ASSIGN_OR_RETURN(Parts next, lastLane(out, maskedLane(lane)));
    std::string yields;
    for (int p = 0; p < parts_; ++p) yields += (p ? ", " : "") + next[p].name;
    w_.line("scf.yield " + yields + " : " + types);
    w_.close("}");
    el_->restore(saved);
    carry.clear();
    for (int p = 0; p < parts_; ++p)
      carry.push_back(Value{parts_ == 1 ? name : name + "#" + std::to_string(p),
                            init[p].type,
                            {br_, 1},
                            init[p].scalar});
  }
  if (carry_out) storeParts(signature_.outputs[*carry_out], carry, kept_space);

  Launch launch;
  launch.grid = {static_cast<uint32_t>(programs), 1, 1};
  launch.num_warps = 4;
  launch.tile = std::to_string(br_) + "x" + std::to_string(bk_);
  if (looped) launch.tile += " looped";
  return launch;
}

}  // namespace

StatusOr<Launch> emitScanKernel(const KernelInputs& in) {
  return ScanKernel(in).emit();
}

}  // namespace jft::codegen::ttir
