#include "codegen/ttir/window_emitter.h"

#include <optional>

#include "codegen/ttir/elementwise.h"

namespace jft::codegen::ttir {

namespace {

// Window attributes with StableHLO's defaults (sizes and strides 1, no
// padding, no dilation), the input's and result's dims.
struct Window {
  std::vector<int64_t> in, out, size, stride, base, dil, lo;
  int64_t volume = 1;
};

std::vector<int64_t> orFill(std::vector<int64_t> v, size_t count, int64_t fill) {
  if (v.empty()) v.assign(count, fill);
  return v;
}

StatusOr<Window> windowOf(const ir::Module& module, const ir::Op& op) {
  const std::string name = "stablehlo." + std::string(ir::opKindName(op.kind));
  Window w;
  w.in = dimsOf(module, op.operands.at(0));
  w.out = dimsOf(module, op.results.at(0));
  const size_t rank = w.in.size();
  w.size = orFill(intsAttr(op, "window_dimensions"), rank, 1);
  w.stride = orFill(intsAttr(op, "window_strides"), rank, 1);
  w.base = orFill(intsAttr(op, "base_dilations"), rank, 1);
  w.dil = orFill(intsAttr(op, "window_dilations"), rank, 1);
  const std::vector<int64_t> padding = orFill(intsAttr(op, "padding"), 2 * rank, 0);
  if (w.size.size() != rank || w.stride.size() != rank || w.base.size() != rank ||
      w.dil.size() != rank || padding.size() != 2 * rank || w.out.size() != rank)
    return unimplemented(name + ": window attributes do not match rank " +
                         std::to_string(rank));
  for (size_t d = 0; d < rank; ++d) {
    w.lo.push_back(padding[2 * d]);
    w.volume *= w.size[d];
  }
  return w;
}

// A space over `dims` with components `comps`, the masks of `from` and
// `valid` added to them.
int deriveSpace(Elemental& el, int from, const std::vector<int64_t>& dims,
                std::vector<Value> comps, const std::optional<Value>& valid) {
  if (dims.empty()) return el.scalarSpace();
  IndexBuilder& ix = el.index();
  IndexSpace s;
  s.dims = dims;
  for (Value& c : comps) s.comps.emplace_back(std::move(c));
  s.bounds = ix.space(from).bounds;
  s.valid = ix.space(from).valid;
  if (valid) s.valid = s.valid ? ix.both(*s.valid, *valid) : *valid;
  return ix.intern(std::move(s));
}

void andInto(IndexBuilder& ix, std::optional<Value>& acc, const Value& v) {
  acc = acc ? ix.both(*acc, v) : v;
}

// `args` broadcast to one shape, then the region applied lane by lane.
StatusOr<std::vector<Value>> applyRegion(Elemental& el, const ir::Region& region,
                                         std::vector<Value> args,
                                         std::vector<int64_t> shape) {
  IndexBuilder& ix = el.index();
  for (const Value& a : args) shape = IndexBuilder::join(shape, a.shape);
  for (Value& a : args) a = ix.broadcast(a, shape);
  return emitScalarRegion(ix.writer(), el.module(), region, args);
}

// The window offset of one window element along one dim: a constant
// (unrolled windows) or a tensor of the tile's rank (looped windows), with
// the least and greatest value it takes.
struct Offset {
  std::optional<Value> dynamic;
  int64_t constant = 0;
  int64_t min = 0, max = 0;
};

// The input index along dim `d` read at output component `o` for window
// offset `off`, and when some lanes fall outside the input (padding, holes
// of base dilation), the mask of those that do not.
std::pair<Value, std::optional<Value>> inputIndex(IndexBuilder& ix, const Window& w,
                                                  size_t d, const Value& o,
                                                  const Offset& off) {
  Value p = ix.mulConst(o, w.stride[d]);
  p = off.dynamic ? ix.add(p, *off.dynamic) : ix.addConst(p, off.constant);
  const int64_t lowest = off.min, highest = (w.out[d] - 1) * w.stride[d] + off.max;
  if (w.base[d] == 1) {
    if (lowest >= 0 && highest < w.in[d]) return {p, std::nullopt};
    // Unsigned: a negative position (in the low padding) is huge.
    return {p, ix.compareConst("ult", p, w.in[d])};
  }
  const int64_t extent = w.in[d] == 0 ? 0 : (w.in[d] - 1) * w.base[d] + 1;
  Value ok = ix.compareConst("ult", p, extent);
  ok = ix.both(ok, ix.compareConst("eq", ix.remConst(p, w.base[d]), 0));
  return {ix.divConst(p, w.base[d]), ok};
}

class ReduceWindowEmitter {
 public:
  ReduceWindowEmitter(Elemental& el, const ir::Op& op, Window w, int space)
      : el_(el), ix_(el.index()), op_(op), w_(std::move(w)), space_(space) {}

  StatusOr<std::vector<Value>> emit() {
    n_ = op_.results.size();
    for (size_t d = 0; d < w_.in.size(); ++d) out_.push_back(ix_.component(space_, d));
    for (size_t i = 0; i < n_; ++i) {
      JFT_ASSIGN_OR_RETURN(Value init, el_.emit(op_.operands[n_ + i], el_.scalarSpace()));
      inits_.push_back(init);
    }
    if (w_.volume <= kUnrolledWindow) return unrolled();
    return looped();
  }

 private:
  // The accumulators combined with the window element at `offsets`.
  StatusOr<std::vector<Value>> combine(const std::vector<Offset>& offsets,
                                       const std::vector<Value>& acc,
                                       const std::vector<int64_t>& shape) {
    std::vector<Value> comps;
    std::optional<Value> valid;
    for (size_t d = 0; d < w_.in.size(); ++d) {
      auto [index, ok] = inputIndex(ix_, w_, d, out_[d], offsets[d]);
      comps.push_back(index);
      if (ok) andInto(ix_, valid, *ok);
    }
    const int at = deriveSpace(el_, space_, w_.in, std::move(comps), valid);
    std::vector<Value> args = acc;
    for (size_t i = 0; i < n_; ++i) {
      JFT_ASSIGN_OR_RETURN(Value v, el_.emit(op_.operands[i], at));
      if (valid) v = ix_.select(*valid, v, inits_[i]);  // padding reads the init
      args.push_back(v);
    }
    return applyRegion(el_, op_.regions[0], std::move(args), shape);
  }

  // Row-major window element `e`'s position along each dim.
  std::vector<int64_t> unravel(int64_t e) const {
    std::vector<int64_t> pos(w_.size.size());
    for (size_t d = pos.size(); d-- > 0;) {
      pos[d] = e % w_.size[d];
      e /= w_.size[d];
    }
    return pos;
  }

  StatusOr<std::vector<Value>> unrolled() {
    std::vector<Value> acc = inits_;
    for (int64_t e = 0; e < w_.volume; ++e) {
      const std::vector<int64_t> pos = unravel(e);
      std::vector<Offset> offsets;
      for (size_t d = 0; d < pos.size(); ++d) {
        const int64_t c = pos[d] * w_.dil[d] - w_.lo[d];
        offsets.push_back(Offset{std::nullopt, c, c, c});
      }
      JFT_ASSIGN_OR_RETURN(acc, combine(offsets, acc, ix_.ones()));
    }
    return acc;
  }

  // scf.for over the window's linear index, the accumulators tile-shaped.
  StatusOr<std::vector<Value>> looped() {
    TtirWriter& w = ix_.writer();
    const std::vector<int64_t> tile = ix_.tile();
    const std::string& index_type = ix_.indexType();
    const Value lower = ix_.scalarConstant(0), upper = ix_.scalarConstant(w_.volume),
                step = ix_.scalarConstant(1);
    const std::string name = w.freshName(), k0 = w.freshName();
    std::string iter, types;
    std::vector<Value> accs, results;
    for (size_t i = 0; i < n_; ++i) {
      const Value init = ix_.broadcast(inits_[i], tile);
      accs.push_back(Value{w.freshName(), init.type, tile, init.scalar});
      iter += (i ? ", " : "") + accs[i].name + " = " + init.name;
      types += (i ? ", " : "") + init.type;
      results.push_back(Value{n_ == 1 ? name : name + "#" + std::to_string(i), init.type,
                              tile, init.scalar});
    }
    const std::string count = n_ > 1 ? ":" + std::to_string(n_) : "";
    w.open(name + count + " = scf.for " + k0 + " = " + lower.name + " to " + upper.name +
           " step " + step.name + " iter_args(" + iter + ") -> (" + types +
           ") : " + index_type + " {");
    const Elemental::State saved = el_.save();
    const Value k{k0, index_type, {}, index_type};
    std::vector<Offset> offsets(w_.size.size());
    int64_t inner = 1;
    for (size_t d = w_.size.size(); d-- > 0;) {
      Value pos = ix_.scalarBinary("arith.divsi", k, ix_.scalarConstant(inner));
      pos = ix_.scalarBinary("arith.remsi", pos, ix_.scalarConstant(w_.size[d]));
      pos = ix_.scalarBinary("arith.muli", pos, ix_.scalarConstant(w_.dil[d]));
      pos = ix_.scalarBinary("arith.subi", pos, ix_.scalarConstant(w_.lo[d]));
      offsets[d].dynamic = ix_.splat(pos, ix_.ones());
      offsets[d].min = -w_.lo[d];
      offsets[d].max = (w_.size[d] - 1) * w_.dil[d] - w_.lo[d];
      inner *= w_.size[d];
    }
    StatusOr<std::vector<Value>> next = combine(offsets, accs, tile);
    if (next.isOk()) {
      std::string yields;
      for (size_t i = 0; i < n_; ++i) yields += (i ? ", " : "") + (*next)[i].name;
      w.line("scf.yield " + yields + " : " + types);
    }
    w.close("}");
    el_.restore(saved);
    if (!next.isOk()) return next.status();
    return results;
  }

  Elemental& el_;
  IndexBuilder& ix_;
  const ir::Op& op_;
  Window w_;
  int space_;
  size_t n_ = 0;
  std::vector<Value> out_, inits_;
};

}  // namespace

StatusOr<std::vector<Value>> emitReduceWindow(Elemental& elemental, const ir::Op& op,
                                              int space) {
  const size_t n = op.results.size();
  if (n == 0 || op.operands.size() != 2 * n || op.regions.size() != 1)
    return unimplemented("stablehlo.reduce_window without N inputs, N inits, one body");
  JFT_ASSIGN_OR_RETURN(Window w, windowOf(elemental.module(), op));
  return ReduceWindowEmitter(elemental, op, std::move(w), space).emit();
}

StatusOr<Value> emitSelectAndScatter(Elemental& el, const ir::Op& op, int space) {
  if (op.operands.size() != 3 || op.regions.size() != 2)
    return unimplemented("stablehlo.select_and_scatter without 3 operands and 2 regions");
  IndexBuilder& ix = el.index();
  const ir::Module& module = el.module();
  JFT_ASSIGN_OR_RETURN(Window w, windowOf(module, op));
  const std::vector<int64_t>& source = dimsOf(module, op.operands[1]);
  const size_t rank = w.in.size();
  // Windows that can hold one position, per dim and in all.
  std::vector<int64_t> reach;
  int64_t windows = 1;
  for (size_t d = 0; d < rank; ++d) {
    if (w.lo[d] < 0)
      return unimplemented("stablehlo.select_and_scatter with negative padding");
    reach.push_back((w.size[d] + w.stride[d] - 1) / w.stride[d]);
    windows *= reach[d];
  }
  if (windows * w.volume > kMaxSelectReads)
    return unimplemented("stablehlo.select_and_scatter re-reading " +
                         std::to_string(windows * w.volume) + " elements per lane");
  const std::vector<int64_t> window_strides = rowMajorStrides(w.size);
  JFT_ASSIGN_OR_RETURN(Value acc, el.emit(op.operands[2], el.scalarSpace()));
  std::vector<Value> q, first;  // q + pad_low; the last window holding q
  for (size_t d = 0; d < rank; ++d) {
    q.push_back(ix.addConst(ix.component(space, d), w.lo[d]));
    first.push_back(ix.divConst(q[d], w.stride[d]));
  }
  for (int64_t t = 0; t < windows; ++t) {
    // Window j = first - t (per dim), if it exists and holds q.
    std::vector<Value> j, rel;
    std::optional<Value> exists;
    int64_t rest = t;
    std::vector<int64_t> back(rank);
    for (size_t d = rank; d-- > 0;) {
      back[d] = rest % reach[d];
      rest /= reach[d];
    }
    for (size_t d = 0; d < rank; ++d) {
      Value jd = ix.addConst(first[d], -back[d]);
      if (back[d] > 0) andInto(ix, exists, ix.compareConst("sge", jd, 0));
      andInto(ix, exists, ix.compareConst("slt", jd, source[d]));
      Value r = ix.binary("arith.subi", q[d], ix.mulConst(jd, w.stride[d]));
      if (back[d] > 0 || w.stride[d] > w.size[d])
        andInto(ix, exists, ix.compareConst("slt", r, w.size[d]));
      j.push_back(jd);
      rel.push_back(r);
    }
    // The window's selection, over its elements inside the operand.
    std::optional<Value> selected, selected_at, found;
    for (int64_t e = 0; e < w.volume; ++e) {
      std::vector<Value> comps;
      std::optional<Value> inside;
      int64_t left = e;
      std::vector<int64_t> pos(rank);
      for (size_t d = rank; d-- > 0;) {
        pos[d] = left % w.size[d];
        left /= w.size[d];
      }
      for (size_t d = 0; d < rank; ++d) {
        Value p = ix.addConst(ix.mulConst(j[d], w.stride[d]), pos[d] - w.lo[d]);
        andInto(ix, inside, ix.compareConst("ult", p, w.in[d]));
        comps.push_back(p);
      }
      std::optional<Value> mask = exists;
      if (inside) andInto(ix, mask, *inside);
      JFT_ASSIGN_OR_RETURN(
          Value candidate,
          el.emit(op.operands[0], deriveSpace(el, space, w.in, std::move(comps), mask)));
      const Value here = ix.indexConstant(e, ix.ones());
      const Value in_range = inside ? *inside : ix.constant(1, ix.ones(), "i1");
      if (!selected) {
        selected = candidate;
        selected_at = here;
        found = in_range;
        continue;
      }
      JFT_ASSIGN_OR_RETURN(
          std::vector<Value> keep,
          applyRegion(el, op.regions[0], {*selected, candidate}, ix.ones()));
      // Take the candidate when in range and (nothing found yet or the
      // selection does not keep itself against it).
      const Value yes = ix.constant(1, keep.at(0).shape, "i1");
      Value take = ix.binary("arith.ori", ix.binary("arith.xori", *found, yes),
                             ix.binary("arith.xori", keep[0], yes));
      take = ix.both(take, in_range);
      selected = ix.select(take, candidate, *selected);
      selected_at = ix.select(take, here, *selected_at);
      found = ix.binary("arith.ori", *found, in_range);
    }
    Value q_at = ix.indexConstant(0, ix.ones());
    for (size_t d = 0; d < rank; ++d)
      q_at = ix.add(q_at, ix.mulConst(rel[d], window_strides[d]));
    Value hit = ix.both(*found, ix.compare("eq", *selected_at, q_at));
    if (exists) hit = ix.both(hit, *exists);
    JFT_ASSIGN_OR_RETURN(
        Value src, el.emit(op.operands[1], deriveSpace(el, space, source, j, exists)));
    JFT_ASSIGN_OR_RETURN(std::vector<Value> sum,
                         applyRegion(el, op.regions[1], {acc, src}, ix.ones()));
    acc = ix.select(hit, sum.at(0), acc);
  }
  return acc;
}

}  // namespace jft::codegen::ttir
