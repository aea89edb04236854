#include "codegen/ttir/scan_emitter.h"

#include <algorithm>
#include <functional>

#include "codegen/ttir/elemental.h"
#include "codegen/ttir/elementwise.h"
#include "codegen/ttir/index_space.h"
#include "fusion/scan_form.h"

namespace jft::codegen::ttir {

namespace {

using Combine = std::function<StatusOr<std::vector<Value>>(
    const std::vector<Value>& lhs, const std::vector<Value>& rhs)>;

// `"tt.scan"` or `"tt.reduce"` over `operands` along `axis`, its combiner
// written by `combine` on scalars (lhs: the earlier lanes, rhs: the later).
StatusOr<std::vector<Value>> combinerOp(TtirWriter& w, const std::string& op,
                                        const std::vector<Value>& operands, int axis,
                                        const Combine& combine) {
  const size_t n = operands.size();
  std::vector<int64_t> shape = operands[0].shape;
  const bool reduce = op == "tt.reduce";
  if (reduce) shape.erase(shape.begin() + axis);
  const std::string name = w.freshName();
  std::string names, in_types, out_types, arg_list;
  std::vector<Value> lhs, rhs, results;
  for (size_t i = 0; i < n; ++i) {
    names += (i ? ", " : "") + operands[i].name;
    in_types += (i ? ", " : "") + operands[i].type;
    out_types += (i ? ", " : "") + tensorType(shape, operands[i].scalar);
    results.push_back(Value{n == 1 ? name : name + "#" + std::to_string(i),
                            tensorType(shape, operands[i].scalar), shape,
                            operands[i].scalar});
  }
  for (size_t i = 0; i < 2 * n; ++i) {
    const std::string& scalar = operands[i % n].scalar;
    Value arg{w.freshName(), scalar, {}, scalar};
    arg_list += (i ? ", " : "") + arg.name + ": " + scalar;
    (i < n ? lhs : rhs).push_back(arg);
  }
  std::string attrs = "<{axis = " + std::to_string(axis) + " : i32";
  if (!reduce) attrs += ", reverse = false";
  w.open(name + (n > 1 ? ":" + std::to_string(n) : "") + " = \"" + op + "\"(" + names +
         ") " + attrs + "}> ({");
  w.line("^bb0(" + arg_list + "):");
  JFT_ASSIGN_OR_RETURN(std::vector<Value> out, combine(lhs, rhs));
  std::string ret_names, ret_types;
  for (size_t i = 0; i < out.size(); ++i) {
    ret_names += (i ? ", " : "") + out[i].name;
    ret_types += (i ? ", " : "") + out[i].type;
  }
  w.line(op + ".return " + ret_names + " : " + ret_types);
  w.close("}) : (" + in_types + ") -> " + (n > 1 ? "(" + out_types + ")" : out_types));
  return results;
}

class ScanKernel {
 public:
  ScanKernel(TtirWriter& writer, const ir::Module& module, const ir::Function& function,
             const fusion::Fusion& fusion, const KernelSignature& signature,
             const std::string& index_type)
      : w_(writer),
        module_(module),
        function_(function),
        fusion_(fusion),
        signature_(signature),
        index_type_(index_type) {}

  StatusOr<Launch> emit();

 private:
  // The scan's combiner on (earlier, later) operands of any one shape.
  StatusOr<Value> combine(const Value& earlier, const Value& later) {
    std::vector<Value> args = form_.composite ? std::vector<Value>{later, earlier}
                                              : std::vector<Value>{earlier, later};
    JFT_ASSIGN_OR_RETURN(std::vector<Value> out,
                         emitScalarRegion(w_, module_, *form_.body, args));
    return out.at(0);
  }
  // `earlier` ([BR, 1]) combined into every lane of `later` (a tile). Region
  // constants are written as scalars, so a region holding one combines the
  // joined pair through a size-2 tt.reduce instead of lane by lane.
  StatusOr<Value> combineTile(const Value& earlier, const Value& later);
  // Per row: the lane with the largest position < n (lanes past it carry -1).
  StatusOr<Value> lastLane(const Value& tile, const Value& lane);
  // The input at positions `lane` ([1, BK]) of the program's rows.
  StatusOr<Value> chunk(const Value& lane);
  int fullSpace(const Value& lane);

  TtirWriter& w_;
  const ir::Module& module_;
  const ir::Function& function_;
  const fusion::Fusion& fusion_;
  const KernelSignature& signature_;
  std::string index_type_;
  fusion::ScanForm form_;
  const ir::Op* op_ = nullptr;
  std::vector<int64_t> full_;
  int64_t n_ = 1, outer_ = 1, inner_ = 1, br_ = 1, bk_ = 1;
  std::optional<IndexBuilder> ix_;
  std::optional<Elemental> el_;
  Value row_;
  std::vector<Value> row_bounds_;
  bool has_constant_ = false;
};

StatusOr<Value> ScanKernel::combineTile(const Value& earlier, const Value& later) {
  const Value e = ix_->broadcast(earlier, later.shape);
  if (!has_constant_) return combine(e, later);
  std::vector<int64_t> shape = later.shape;
  shape.push_back(2);
  const Value pair = w_.op("tt.join " + e.name + ", " + later.name + " : " + e.type +
                               " -> " + tensorType(shape, e.scalar),
                           shape, e.scalar);
  JFT_ASSIGN_OR_RETURN(
      std::vector<Value> r,
      combinerOp(w_, "tt.reduce", {pair}, 2,
                 [&](const std::vector<Value>& a,
                     const std::vector<Value>& b) -> StatusOr<std::vector<Value>> {
                   JFT_ASSIGN_OR_RETURN(Value c, combine(a[0], b[0]));
                   return std::vector<Value>{c};
                 }));
  return r[0];
}

StatusOr<Value> ScanKernel::lastLane(const Value& tile, const Value& lane) {
  const Value t = ix_->broadcast(lane, tile.shape);
  JFT_ASSIGN_OR_RETURN(
      std::vector<Value> r,
      combinerOp(w_, "tt.reduce", {tile, t}, 1,
                 [&](const std::vector<Value>& a,
                     const std::vector<Value>& b) -> StatusOr<std::vector<Value>> {
                   const Value later = w_.op("arith.cmpi sgt, " + a[1].name + ", " +
                                                 b[1].name + " : " + a[1].type,
                                             {}, "i1");
                   const Value v = w_.op("arith.select " + later.name + ", " + a[0].name +
                                             ", " + b[0].name + " : " + a[0].type,
                                         {}, a[0].scalar);
                   const Value k = w_.op("arith.select " + later.name + ", " + a[1].name +
                                             ", " + b[1].name + " : " + a[1].type,
                                         {}, a[1].scalar);
                   return std::vector<Value>{v, k};
                 }));
  const Value& v = r[0];
  return w_.op("tt.expand_dims " + v.name + " {axis = 1 : i32} : " + v.type + " -> " +
                   tensorType({v.shape[0], 1}, v.scalar),
               {v.shape[0], 1}, v.scalar);
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

StatusOr<Value> ScanKernel::chunk(const Value& lane) {
  JFT_ASSIGN_OR_RETURN(Value x, el_->emit(form_.input, fullSpace(lane)));
  return ix_->broadcast(x, ix_->tile());
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
  JFT_ASSIGN_OR_RETURN(Value init, el_->emit(form_.init, kept_space));
  init = ix.broadcast(init, {br_, 1});

  const ir::ElementType element = module_.typeOf(op_->results[0]).element;
  auto scanChunk = [&](const Value& lane, const Value& carry) -> StatusOr<Value> {
    JFT_ASSIGN_OR_RETURN(Value x, chunk(lane));
    JFT_ASSIGN_OR_RETURN(
        std::vector<Value> s,
        combinerOp(w_, "tt.scan", {x}, 1,
                   [&](const std::vector<Value>& a,
                       const std::vector<Value>& b) -> StatusOr<std::vector<Value>> {
                     JFT_ASSIGN_OR_RETURN(Value c, combine(a[0], b[0]));
                     return std::vector<Value>{c};
                   }));
    JFT_ASSIGN_OR_RETURN(Value out, combineTile(carry, s[0]));
    el_->store(signature_.outputs.at(0), element, out, fullSpace(lane));
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
  Value carry = init;
  if (!looped) {
    const Value lane = ix.range(1);
    JFT_ASSIGN_OR_RETURN(Value out, scanChunk(lane, init));
    if (carry_out) {
      JFT_ASSIGN_OR_RETURN(carry, lastLane(out, maskedLane(lane)));
    }
  } else {
    const Value lower = ix.scalarConstant(0), upper = ix.scalarConstant(n_),
                step = ix.scalarConstant(bk_);
    const std::string name = w_.freshName(), k0 = w_.freshName(), acc = w_.freshName();
    w_.open(name + " = scf.for " + k0 + " = " + lower.name + " to " + upper.name +
            " step " + step.name + " iter_args(" + acc + " = " + init.name + ") -> (" +
            init.type + ") : " + index_type_ + " {");
    const Elemental::State saved = el_->save();
    const Value lane =
        ix.add(ix.splat(Value{k0, index_type_, {}, index_type_}, {1, bk_}), ix.range(1));
    JFT_ASSIGN_OR_RETURN(Value out,
                         scanChunk(lane, Value{acc, init.type, {br_, 1}, init.scalar}));
    JFT_ASSIGN_OR_RETURN(Value next, lastLane(out, maskedLane(lane)));
    w_.line("scf.yield " + next.name + " : " + next.type);
    w_.close("}");
    el_->restore(saved);
    carry = Value{name, init.type, {br_, 1}, init.scalar};
  }
  if (carry_out) el_->store(signature_.outputs[*carry_out], element, carry, kept_space);

  Launch launch;
  launch.grid = {static_cast<uint32_t>(programs), 1, 1};
  launch.num_warps = 4;
  launch.tile = std::to_string(br_) + "x" + std::to_string(bk_);
  if (looped) launch.tile += " looped";
  return launch;
}

}  // namespace

StatusOr<Launch> emitScanKernel(TtirWriter& writer, const ir::Module& module,
                                const ir::Function& function,
                                const fusion::Fusion& fusion,
                                const KernelSignature& signature,
                                const std::string& index_type) {
  ScanKernel kernel(writer, module, function, fusion, signature, index_type);
  return kernel.emit();
}

}  // namespace jft::codegen::ttir
