#include "codegen/ttir/sort_emitter.h"

#include <algorithm>
#include <functional>
#include <map>
#include <span>

#include "codegen/ttir/elemental.h"
#include "codegen/ttir/elementwise.h"
#include "codegen/ttir/index_space.h"
#include "codegen/ttir/kernel_emitter.h"
#include "codegen/ttir/memory_access.h"
#include "codegen/ttir/tile_ops.h"
#include "fusion/ttir_support.h"

namespace jft::codegen::ttir {

namespace {

class SortKernel : KernelEmitter {
 public:
  SortKernel(const KernelInputs& inputs, bool register_steps)
      : KernelEmitter(inputs), register_steps_(register_steps) {}

  StatusOr<Launch> emit();
  // Rows longer than one tile (sort_emitter.h): the signature has the
  // scratch buffers, one per operand then the positions.
  StatusOr<Launch> emitLong();
  // Checks the group and sets op_, n_, rows_, inner_.
  Status check();
  // Scratch: each operand's lanes, then i32 positions, nextPow2(n) lanes
  // per row (the padding included).
  std::vector<ScratchBuffer> rowScratch() const;
  bool longRow() const { return lanes_ > kMaxSortRow; }

 private:
  // The row of program `pid` in the input/output layout: lanes `lane`
  // (index type, [T]) at base + lane * inner.
  int rowSpace(IndexBuilder& ix, const Value& base, const Value& lane);
  Value rowBase(IndexBuilder& ix, const Value& pid);
  // Scratch access at `offset` ([T], index type) of buffer `k` (operands,
  // then the positions), masked.
  Value loadScratch(IndexBuilder& ix, size_t k, const Value& offset,
                    const std::optional<Value>& mask);
  void storeScratch(IndexBuilder& ix, size_t k, const Value& offset, const Value& value,
                    const std::optional<Value>& mask);
  ir::ElementType scratchElement(size_t k) const;
  // One compare-and-swap pass through global memory over pairs (lo, hi) of
  // the row: the mirror pairs of blocks of `block` (distance < 0) or pairs
  // `distance` apart; then a barrier.
  Status globalPass(IndexBuilder& ix, const Value& row, int64_t block, int64_t distance);
  // scf.for iv = lower to upper step 1 carrying `state` (replaced by the
  // loop's results); `body` turns the carried values into the next ones.
  using LoopBody = std::function<Status(const Value& iv, std::vector<Value>& state)>;
  Status forLoop(IndexBuilder& ix, const Value& lower, const Value& upper,
                 std::vector<Value>& state, const LoopBody& body);
  // One compare-and-swap step at partner distance `distance` (a scalar):
  // every lane of `state` (the operands, then the positions) stored at
  // `row_start` ([T] splat, index type) + lane, a barrier, its partner's
  // read back, a barrier, then each lane keeps its own or the partner's.
  // Lanes where `descending` holds sort their pair the other way.
  Status exchange(IndexBuilder& ix, const Value& row_start, const Value& distance,
                  const std::optional<Value>& descending, std::vector<Value>& state);
  int laneBits() const;  // log2 T
  // log2 of the distances below which a step is done in registers
  // (kRegisterDistances, at most log2 T).
  int registerBits() const;
  // One compare-and-swap step at the constant distance `distance` in
  // registers: each [T] tile viewed as [T / 2d, 2, d], its two halves split
  // apart, compared, and joined back. `descending` as in exchange.
  Status registerStep(int64_t distance, const std::optional<Value>& descending,
                      std::vector<Value>& state);
  // The register steps at distances 2^(registerBits - 1) .. 1 of a stage;
  // under `stage` (a scalar) a step runs only when its distance is below
  // 2^stage (the early stages have fewer steps).
  Status registerSteps(IndexBuilder& ix, const std::optional<Value>& stage,
                       const std::optional<Value>& descending, std::vector<Value>& state);
  // scf.if `cond` -> state: `body` when it holds, the state unchanged
  // otherwise.
  Status ifThen(const Value& cond, std::vector<Value>& state,
                const std::function<Status(std::vector<Value>&)>& body);
  Value reshape(const Value& v, const std::vector<int64_t>& shape);
  Value trans021(const Value& v);
  std::pair<Value, Value> split(const Value& v);
  Value join(const Value& a, const Value& b);
  // The bitonic network over T lanes as two nested loops (stage, then
  // partner distance) of one exchange each: TTIR of one step whatever T is.
  Status loopNetwork(IndexBuilder& ix, const Value& row_start, std::vector<Value>& values,
                     Value& pos);
  // Its last stage alone (all ascending): T lanes holding two sorted halves
  // in bitonic order, or a tile of a merge below the tile's width, sorted.
  Status loopMerge(IndexBuilder& ix, const Value& row_start, std::vector<Value>& values,
                   Value& pos);
  // Positions to i32.
  Value positions(const Value& lane);
  // The sort's results that are group outputs, stored at `space`.
  Status storeOutputs(Elemental& el, const std::vector<Value>& values, int space);
  // Opens `scf.for iv = 0 to upper step T` and returns iv; what is memoised
  // in the body must be saved after this and restored after it closes.
  std::string openLaneLoop(IndexBuilder& ix, int64_t upper);
  // The loop's T lanes: iv + 0..T-1.
  Value loopLanes(IndexBuilder& ix, const std::string& iv);
  // scf.for over the row's tiles [0, n) (lane: [T] positions in the row);
  // `el`'s memo is restored after the body.
  Status overTiles(Elemental& el, const std::function<Status(const Value& lane)>& body);
  // The comparator on [A, B] tiles: lhs/rhs hold one tile per operand.
  StatusOr<Value> compare(const std::vector<Value>& lhs, const std::vector<Value>& rhs);
  // A splat constant on `shape` (the comparator's own, or one it captures).
  StatusOr<Value> splat(const ir::Op& op, const std::vector<int64_t>& shape);
  // A value the comparator captures: a splat constant of the function body.
  StatusOr<Value> captured(ir::ValueId id, const std::vector<int64_t>& shape);
  // less(a, b): the comparator, then the position; lanes past the row last.
  StatusOr<Value> less(const std::vector<Value>& a, const Value& ai,
                       const std::vector<Value>& b, const Value& bi);
  Value select(const Value& c, const Value& a, const Value& b);

  const ir::Op* op_ = nullptr;
  int64_t n_ = 1, lanes_ = 1;
  int64_t rows_ = 1, inner_ = 1;
  size_t axis_ = 0;
  bool register_steps_ = false;  // EmitOptions::sort_register_steps
};

Value SortKernel::select(const Value& c, const Value& a, const Value& b) {
  return w_.op("arith.select " + c.name + ", " + a.name + ", " + b.name + " : " + c.type +
                   ", " + a.type,
               a.shape, a.scalar);
}

Value SortKernel::reshape(const Value& v, const std::vector<int64_t>& shape) {
  return w_.op(
      "tt.reshape " + v.name + " : " + v.type + " -> " + tensorType(shape, v.scalar),
      shape, v.scalar);
}

Value SortKernel::trans021(const Value& v) {
  const std::vector<int64_t> shape{v.shape[0], v.shape[2], v.shape[1]};
  return w_.op("tt.trans " + v.name + " {order = array<i32: 0, 2, 1>} : " + v.type +
                   " -> " + tensorType(shape, v.scalar),
               shape, v.scalar);
}

std::pair<Value, Value> SortKernel::split(const Value& v) {
  const std::vector<int64_t> shape{v.shape[0], v.shape[1]};
  const std::string name = w_.freshName();
  const std::string type = tensorType(shape, v.scalar);
  w_.line(name + ":2 = tt.split " + v.name + " : " + v.type + " -> " + type);
  return {Value{name + "#0", type, shape, v.scalar},
          Value{name + "#1", type, shape, v.scalar}};
}

Value SortKernel::join(const Value& a, const Value& b) {
  const std::vector<int64_t> shape{a.shape[0], a.shape[1], 2};
  return w_.op("tt.join " + a.name + ", " + b.name + " : " + a.type + " -> " +
                   tensorType(shape, a.scalar),
               shape, a.scalar);
}

StatusOr<Value> SortKernel::splat(const ir::Op& op, const std::vector<int64_t>& shape) {
  const auto* dense = ir::findAttrAs<ir::DenseElements>(op.attrs, "value");
  if (op.kind != ir::OpKind::Constant || !fusion::isSplatConstant(op) || !dense ||
      op.results.size() != 1)
    return unimplemented(
        "stablehlo.sort: the comparator reads a value that is not a "
        "splat constant");
  const ir::ElementType element = module_.typeOf(op.results[0]).element;
  const std::span<const uint8_t> first = dense->element(0);
  const std::string_view bytes(reinterpret_cast<const char*>(first.data()), first.size());
  return emitSplatConstant(w_, element, shape, bytes);
}

StatusOr<Value> SortKernel::captured(ir::ValueId id, const std::vector<int64_t>& shape) {
  for (const ir::Op& op : function_.body.ops)
    if (op.results.size() == 1 && op.results[0] == id) return splat(op, shape);
  return unimplemented(
      "stablehlo.sort: the comparator reads a value that is not a splat "
      "constant");
}

StatusOr<Value> SortKernel::compare(const std::vector<Value>& lhs,
                                    const std::vector<Value>& rhs) {
  const ir::Region& region = op_->regions.at(0);
  const std::vector<int64_t> shape = lhs.at(0).shape;
  std::map<ir::ValueId, Value> values;
  for (size_t i = 0; i < lhs.size(); ++i) {
    values[region.args.at(2 * i)] = lhs[i];
    values[region.args.at(2 * i + 1)] = rhs[i];
  }
  auto lookup = [&](ir::ValueId id) -> StatusOr<Value> {
    if (auto it = values.find(id); it != values.end()) return it->second;
    JFT_ASSIGN_OR_RETURN(Value v, captured(id, shape));
    values[id] = v;
    return v;
  };
  for (const ir::Op& op : region.ops) {
    if (op.kind == ir::OpKind::Constant && op.results.size() == 1) {
      JFT_ASSIGN_OR_RETURN(Value v, splat(op, shape));
      values[op.results[0]] = v;
      continue;
    }
    std::vector<Value> operands;
    for (ir::ValueId id : op.operands) {
      JFT_ASSIGN_OR_RETURN(Value v, lookup(id));
      operands.push_back(v);
    }
    if (op.kind == ir::OpKind::Return) {
      if (operands.size() != 1)
        return unimplemented("sort comparator returns no single i1");
      return operands[0];
    }
    std::string why;
    if (!isEmittableElementwise(module_, op, &why))
      return unimplemented("stablehlo.sort comparator: " + why);
    JFT_ASSIGN_OR_RETURN(Value r, emitElementwise(w_, module_, op, operands));
    values[op.results.at(0)] = r;
  }
  return unimplemented("stablehlo.sort comparator without a return");
}

StatusOr<Value> SortKernel::less(const std::vector<Value>& a, const Value& ai,
                                 const std::vector<Value>& b, const Value& bi) {
  JFT_ASSIGN_OR_RETURN(Value ab, compare(a, b));
  JFT_ASSIGN_OR_RETURN(Value ba, compare(b, a));
  const std::string& t = ai.type;
  auto cmp = [&](const std::string& pred, const Value& x, const Value& y) {
    return w_.op("arith.cmpi " + pred + ", " + x.name + ", " + y.name + " : " + t,
                 ai.shape, "i1");
  };
  auto bin = [&](const std::string& op, const Value& x, const Value& y) {
    return w_.op(op + " " + x.name + ", " + y.name + " : " + x.type, x.shape, "i1");
  };
  const Value earlier = cmp("slt", ai, bi);
  const Value n = w_.op("arith.constant dense<" + std::to_string(n_) + "> : " + t,
                        ai.shape, ai.scalar);
  const Value past = bin("arith.ori", cmp("sge", ai, n), cmp("sge", bi, n));
  const Value yes = w_.op("arith.constant dense<true> : " + ab.type, ab.shape, "i1");
  // comparator(a, b) || (!comparator(b, a) && a before b)
  const Value tie = bin("arith.andi", bin("arith.xori", ba, yes), earlier);
  const Value by_key = bin("arith.ori", ab, tie);
  return select(past, earlier, by_key);
}

Status SortKernel::check() {
  if (fusion_.ops.empty()) return unimplemented(fusion_.name + ": an empty sort group");
  op_ = &function_.body.ops.at(fusion_.ops.back());
  if (op_->kind != ir::OpKind::Sort || op_->regions.size() != 1)
    return unimplemented(fusion_.name + ": the sort group's root is not a sort");
  const std::vector<int64_t>& full = module_.typeOf(op_->operands.at(0)).dims;
  const auto* dim_attr = ir::findAttrAs<int64_t>(op_->attrs, "dimension");
  axis_ = dim_attr ? static_cast<size_t>(*dim_attr) : full.size() - 1;
  n_ = full.at(axis_);
  lanes_ = nextPow2(n_);
  if (lanes_ > kMaxLongSortRow || lanes_ < 2)
    return unimplemented("stablehlo.sort of a row of " + std::to_string(n_) +
                         " elements (1 < n <= " + std::to_string(kMaxLongSortRow) + ")");
  int64_t outer = 1;
  inner_ = 1;
  for (size_t d = 0; d < full.size(); ++d) {
    if (d < axis_) outer *= full[d];
    if (d > axis_) inner_ *= full[d];
  }
  rows_ = outer * inner_;
  return Status::ok();
}

Value SortKernel::rowBase(IndexBuilder& ix, const Value& pid) {
  // Row base: o * n * inner + i with o = pid / inner, i = pid % inner.
  if (inner_ > 1) {
    const Value in = ix.scalarConstant(inner_);
    const Value o = ix.scalarBinary("arith.divsi", pid, in);
    const Value i = ix.scalarBinary("arith.remsi", pid, in);
    return ix.scalarBinary(
        "arith.addi", ix.scalarBinary("arith.muli", o, ix.scalarConstant(n_ * inner_)),
        i);
  }
  return ix.scalarBinary("arith.muli", pid, ix.scalarConstant(n_));
}

int SortKernel::rowSpace(IndexBuilder& ix, const Value& base, const Value& lane) {
  IndexSpace s;
  s.dims = module_.typeOf(op_->operands.at(0)).dims;
  s.linear = ix.add(ix.splat(base, lane.shape), ix.mulConst(lane, inner_));
  if (n_ % ix.tile()[0] != 0) s.bounds.push_back(ix.compareConst("slt", lane, n_));
  return ix.intern(std::move(s));
}

Value SortKernel::positions(const Value& lane) {
  if (lane.scalar == "i32") return lane;
  return w_.op("arith.trunci " + lane.name + " : " + lane.type + " to " +
                   tensorType(lane.shape, "i32"),
               lane.shape, "i32");
}

Status SortKernel::storeOutputs(Elemental& el, const std::vector<Value>& values,
                                int space) {
  for (size_t o = 0; o < fusion_.outputs.size(); ++o) {
    size_t r = 0;
    while (r < op_->results.size() && op_->results[r] != fusion_.outputs[o]) ++r;
    if (r == op_->results.size())
      return unimplemented(fusion_.name +
                           ": a sort kernel stores only the sort's results");
    el.store(signature_.outputs[o], module_.typeOf(op_->results[r]).element, values[r],
             space);
  }
  return Status::ok();
}

std::vector<ScratchBuffer> SortKernel::rowScratch() const {
  std::vector<ScratchBuffer> scratch;
  for (size_t k = 0; k <= op_->operands.size(); ++k) {
    const ir::ElementType element = scratchElement(k);
    scratch.push_back({static_cast<uint64_t>(rows_ * lanes_ * ir::storageBytes(element)),
                       memoryType(element)});
  }
  return scratch;
}

Status SortKernel::forLoop(IndexBuilder& ix, const Value& lower, const Value& upper,
                           std::vector<Value>& state, const LoopBody& body) {
  const std::string& it = ix.indexType();
  const std::string name = w_.freshName(), iv = w_.freshName();
  std::string iter, types;
  std::vector<Value> inside, results;
  for (size_t i = 0; i < state.size(); ++i) {
    inside.push_back(
        Value{w_.freshName(), state[i].type, state[i].shape, state[i].scalar});
    iter += (i ? ", " : "") + inside[i].name + " = " + state[i].name;
    types += (i ? ", " : "") + state[i].type;
    results.push_back(Value{name + "#" + std::to_string(i), state[i].type, state[i].shape,
                            state[i].scalar});
  }
  w_.open(name + ":" + std::to_string(state.size()) + " = scf.for " + iv + " = " +
          lower.name + " to " + upper.name + " step " + ix.scalarConstant(1).name +
          " iter_args(" + iter + ") -> (" + types + ") : " + it + " {");
  const IndexBuilder::State saved = ix.save();
  JFT_RETURN_IF_ERROR(body(Value{iv, it, {}, it}, inside));
  std::string yields;
  for (size_t i = 0; i < inside.size(); ++i) yields += (i ? ", " : "") + inside[i].name;
  w_.line("scf.yield " + yields + " : " + types);
  w_.close("}");
  ix.restore(saved);
  state = std::move(results);
  return Status::ok();
}

Status SortKernel::exchange(IndexBuilder& ix, const Value& row_start,
                            const Value& distance, const std::optional<Value>& descending,
                            std::vector<Value>& state) {
  const Value lane = ix.range(0);
  const Value zeros = ix.splat(ix.scalarConstant(0), {lanes_});
  const Value j = ix.splat(distance, {lanes_});
  const Value at = ix.add(row_start, lane);
  const size_t m = state.size() - 1;
  for (size_t i = 0; i <= m; ++i) storeScratch(ix, i, at, state[i], std::nullopt);
  w_.line("gpu.barrier");
  const Value partner_at = ix.add(row_start, ix.binary("arith.xori", lane, j));
  std::vector<Value> other;
  for (size_t i = 0; i <= m; ++i)
    other.push_back(loadScratch(ix, i, partner_at, std::nullopt));
  // Every lane has read its partner before the next step stores over it.
  w_.line("gpu.barrier");
  // The pair's lower lane holds `lo`; swap when `hi` orders first
  // (ascending blocks) or does not (descending ones).
  const Value lower = ix.compare("eq", ix.binary("arith.andi", lane, j), zeros);
  std::vector<Value> lo, hi;
  for (size_t i = 0; i < m; ++i) {
    lo.push_back(select(lower, state[i], other[i]));
    hi.push_back(select(lower, other[i], state[i]));
  }
  const Value lo_pos = select(lower, state[m], other[m]);
  const Value hi_pos = select(lower, other[m], state[m]);
  JFT_ASSIGN_OR_RETURN(Value swap, less(hi, hi_pos, lo, lo_pos));
  if (descending)
    swap = w_.op("arith.xori " + swap.name + ", " + descending->name + " : " + swap.type,
                 swap.shape, "i1");
  for (size_t i = 0; i <= m; ++i) state[i] = select(swap, other[i], state[i]);
  return Status::ok();
}

int SortKernel::laneBits() const {
  int log = 0;
  while ((int64_t{1} << log) < lanes_) ++log;
  return log;
}

int SortKernel::registerBits() const {
  if (!register_steps_) return 0;
  int log = 0;
  while ((int64_t{1} << log) < kRegisterDistances) ++log;
  return std::min(log, laneBits());
}

Status SortKernel::registerStep(int64_t distance, const std::optional<Value>& descending,
                                std::vector<Value>& state) {
  const std::vector<int64_t> three{lanes_ / (2 * distance), 2, distance};
  auto halves = [&](const Value& v) { return split(trans021(reshape(v, three))); };
  const size_t m = state.size() - 1;
  std::vector<Value> lo, hi;
  for (size_t i = 0; i < m; ++i) {
    auto [l, h] = halves(state[i]);
    lo.push_back(l);
    hi.push_back(h);
  }
  auto [lo_pos, hi_pos] = halves(state[m]);
  JFT_ASSIGN_OR_RETURN(Value swap, less(hi, hi_pos, lo, lo_pos));
  if (descending) {
    // Both lanes of a pair lie in one block (the distance is below the
    // block's), so the lower lane's flag is the pair's; split moves i32.
    const Value wide = w_.op("arith.extui " + descending->name + " : " +
                                 descending->type + " to " + tensorType({lanes_}, "i32"),
                             {lanes_}, "i32");
    const Value flag = halves(wide).first;
    const Value zero = w_.op("arith.constant dense<0> : " + flag.type, flag.shape, "i32");
    const Value desc =
        w_.op("arith.cmpi ne, " + flag.name + ", " + zero.name + " : " + flag.type,
              flag.shape, "i1");
    swap = w_.op("arith.xori " + swap.name + ", " + desc.name + " : " + swap.type,
                 swap.shape, "i1");
  }
  auto merge = [&](const Value& l, const Value& h) {
    const Value nl = select(swap, h, l), nh = select(swap, l, h);
    return reshape(trans021(join(nl, nh)), {lanes_});
  };
  for (size_t i = 0; i < m; ++i) state[i] = merge(lo[i], hi[i]);
  state[m] = merge(lo_pos, hi_pos);
  return Status::ok();
}

Status SortKernel::ifThen(const Value& cond, std::vector<Value>& state,
                          const std::function<Status(std::vector<Value>&)>& body) {
  const std::string name = w_.freshName();
  std::string types, unchanged;
  std::vector<Value> results;
  for (size_t i = 0; i < state.size(); ++i) {
    types += (i ? ", " : "") + state[i].type;
    unchanged += (i ? ", " : "") + state[i].name;
    results.push_back(Value{name + "#" + std::to_string(i), state[i].type, state[i].shape,
                            state[i].scalar});
  }
  w_.open(name + ":" + std::to_string(state.size()) + " = scf.if " + cond.name + " -> (" +
          types + ") {");
  std::vector<Value> inside = state;
  JFT_RETURN_IF_ERROR(body(inside));
  std::string yields;
  for (size_t i = 0; i < inside.size(); ++i) yields += (i ? ", " : "") + inside[i].name;
  w_.line("scf.yield " + yields + " : " + types);
  w_.between("} else {");
  w_.line("scf.yield " + unchanged + " : " + types);
  w_.close("}");
  state = std::move(results);
  return Status::ok();
}

Status SortKernel::registerSteps(IndexBuilder& ix, const std::optional<Value>& stage,
                                 const std::optional<Value>& descending,
                                 std::vector<Value>& state) {
  for (int e = registerBits() - 1; e >= 0; --e) {
    const int64_t distance = int64_t{1} << e;
    auto step = [&](std::vector<Value>& inside) {
      return registerStep(distance, descending, inside);
    };
    // Every stage has the step at distance 1; the others only from stage e + 1.
    if (!stage || e == 0) {
      JFT_RETURN_IF_ERROR(step(state));
      continue;
    }
    const IndexBuilder::State saved = ix.save();
    const Value runs = ix.compare("sgt", *stage, ix.scalarConstant(e));
    JFT_RETURN_IF_ERROR(ifThen(runs, state, step));
    ix.restore(saved);
  }
  return Status::ok();
}

Status SortKernel::loopNetwork(IndexBuilder& ix, const Value& row_start,
                               std::vector<Value>& values, Value& pos) {
  const Value lane = ix.range(0);
  const Value one = ix.scalarConstant(1), zero = ix.scalarConstant(0);
  const Value zeros = ix.splat(zero, {lanes_});
  const int below = registerBits();
  std::vector<Value> state = values;
  state.push_back(pos);
  JFT_RETURN_IF_ERROR(forLoop(
      ix, one, ix.scalarConstant(laneBits() + 1), state,
      [&](const Value& stage, std::vector<Value>& outer) -> Status {
        // Blocks of k = 2^stage lanes sort descending where lane & k is set
        // (none in the last stage, k = T).
        const Value k = ix.scalarBinary("arith.shli", one, stage);
        const Value desc =
            ix.compare("ne", ix.binary("arith.andi", lane, ix.splat(k, {lanes_})), zeros);
        // Partner distances 2^(stage - 1) .. 2^below through scratch (none
        // in the stages up to `below`), then the rest in registers.
        if (below < laneBits()) {
          const Value top = ix.scalarBinary("arith.subi", stage, one);
          const Value count = ix.scalarBinary(
              "arith.maxsi",
              ix.scalarBinary("arith.subi", stage, ix.scalarConstant(below)), zero);
          JFT_RETURN_IF_ERROR(forLoop(
              ix, zero, count, outer, [&](const Value& t, std::vector<Value>& inner) {
                const Value j = ix.scalarBinary("arith.shli", one,
                                                ix.scalarBinary("arith.subi", top, t));
                return exchange(ix, row_start, j, desc, inner);
              }));
        }
        return registerSteps(ix, stage, desc, outer);
      }));
  pos = state.back();
  state.pop_back();
  values = std::move(state);
  return Status::ok();
}

Status SortKernel::loopMerge(IndexBuilder& ix, const Value& row_start,
                             std::vector<Value>& values, Value& pos) {
  const Value one = ix.scalarConstant(1);
  const Value top = ix.scalarConstant(laneBits() - 1);
  const int below = registerBits();
  std::vector<Value> state = values;
  state.push_back(pos);
  if (below < laneBits())
    JFT_RETURN_IF_ERROR(forLoop(
        ix, ix.scalarConstant(0), ix.scalarConstant(laneBits() - below), state,
        [&](const Value& t, std::vector<Value>& inner) {
          const Value j =
              ix.scalarBinary("arith.shli", one, ix.scalarBinary("arith.subi", top, t));
          return exchange(ix, row_start, j, std::nullopt, inner);
        }));
  JFT_RETURN_IF_ERROR(registerSteps(ix, std::nullopt, std::nullopt, state));
  pos = state.back();
  state.pop_back();
  values = std::move(state);
  return Status::ok();
}

ir::ElementType SortKernel::scratchElement(size_t k) const {
  return k < op_->operands.size() ? module_.typeOf(op_->operands[k]).element
                                  : ir::ElementType::I32;
}

Value SortKernel::loadScratch(IndexBuilder& ix, size_t k, const Value& offset,
                              const std::optional<Value>& mask) {
  const ir::ElementType element = scratchElement(k);
  return loadTile(ix, element, pointerTile(w_, signature_.scratch.at(k), element, offset),
                  mask);
}

void SortKernel::storeScratch(IndexBuilder& ix, size_t k, const Value& offset,
                              const Value& value, const std::optional<Value>& mask) {
  const ir::ElementType element = scratchElement(k);
  storeTile(ix, element, pointerTile(w_, signature_.scratch.at(k), element, offset),
            value, mask);
}

std::string SortKernel::openLaneLoop(IndexBuilder& ix, int64_t upper) {
  const Value lower = ix.scalarConstant(0), end = ix.scalarConstant(upper),
              step = ix.scalarConstant(lanes_);
  const std::string iv = w_.freshName();
  w_.open("scf.for " + iv + " = " + lower.name + " to " + end.name + " step " +
          step.name + " : " + ix.indexType() + " {");
  return iv;
}

Value SortKernel::loopLanes(IndexBuilder& ix, const std::string& iv) {
  return ix.add(ix.splat(Value{iv, ix.indexType(), {}, ix.indexType()}, {lanes_}),
                ix.range(0));
}

Status SortKernel::overTiles(Elemental& el,
                             const std::function<Status(const Value& lane)>& body) {
  IndexBuilder& ix = el.index();
  const std::string c0 = openLaneLoop(ix, n_);
  const Elemental::State saved = el.save();
  JFT_RETURN_IF_ERROR(body(loopLanes(ix, c0)));
  w_.close("}");
  el.restore(saved);
  return Status::ok();
}

Status SortKernel::globalPass(IndexBuilder& ix, const Value& row, int64_t block,
                              int64_t distance) {
  // Pairs p of the padded row (half its length), T per step.
  const int64_t padded = nextPow2(n_);
  const std::string p0 = openLaneLoop(ix, padded / 2);
  const IndexBuilder::State saved = ix.save();
  const Value p = loopLanes(ix, p0);
  Value lo, hi;
  if (distance < 0) {
    // Mirror pairs in blocks of `block`: lo = b * block + r, hi = b * block +
    // block - 1 - r, for r < block / 2.
    const int64_t half = block / 2;
    const Value start = ix.mulConst(ix.divConst(p, half), block);
    const Value r = ix.remConst(p, half);
    lo = ix.add(start, r);
    hi = ix.binary("arith.subi", ix.addConst(start, block - 1), r);
  } else {
    lo = ix.add(ix.mulConst(ix.divConst(p, distance), 2 * distance),
                ix.remConst(p, distance));
    hi = ix.addConst(lo, distance);
  }
  // Past the row is padding, the largest of all: it never moves, so pairs
  // reaching it are left alone.
  std::optional<Value> valid;
  if (n_ != padded) valid = ix.compareConst("slt", hi, n_);
  const Value row_splat = ix.splat(row, {lanes_});
  const Value lo_at = ix.add(row_splat, lo), hi_at = ix.add(row_splat, hi);
  const size_t m = op_->operands.size();
  std::vector<Value> a, b;
  for (size_t k = 0; k < m; ++k) {
    a.push_back(loadScratch(ix, k, lo_at, valid));
    b.push_back(loadScratch(ix, k, hi_at, valid));
  }
  const Value pa = loadScratch(ix, m, lo_at, valid),
              pb = loadScratch(ix, m, hi_at, valid);
  JFT_ASSIGN_OR_RETURN(Value swap, less(b, pb, a, pa));
  for (size_t k = 0; k <= m; ++k) {
    const Value& x = k < m ? a[k] : pa;
    const Value& y = k < m ? b[k] : pb;
    storeScratch(ix, k, lo_at, select(swap, y, x), valid);
    storeScratch(ix, k, hi_at, select(swap, x, y), valid);
  }
  w_.close("}");
  ix.restore(saved);
  w_.line("gpu.barrier");
  return Status::ok();
}

StatusOr<Launch> SortKernel::emitLong() {
  JFT_RETURN_IF_ERROR(check());
  const int64_t padded = lanes_;
  lanes_ = kMaxSortRow;  // the tile; the row is padded / lanes_ tiles
  IndexBuilder ix(w_, {lanes_}, index_type_);
  Elemental el(ix, module_, fusion_, function_, signature_.inputs);
  const Value pid = ix.programId();
  const Value base = rowBase(ix, pid);
  const Value row = ix.scalarBinary("arith.muli", pid, ix.scalarConstant(padded));
  const size_t m = op_->operands.size();
  int row_log = 0;
  while ((int64_t{1} << row_log) < padded) ++row_log;
  // The scratch of the tile whose lanes are `lane`, and the lanes themselves.
  auto tileStart = [&](const Value& lane) {
    return ix.add(ix.splat(row, {lanes_}), ix.binary("arith.subi", lane, ix.range(0)));
  };
  auto storeTileScratch = [&](const Value& lane, const std::vector<Value>& values,
                              const Value& pos) {
    const Value at = ix.add(ix.splat(row, {lanes_}), lane);
    for (size_t k = 0; k < m; ++k) storeScratch(ix, k, at, values[k], std::nullopt);
    storeScratch(ix, m, at, pos, std::nullopt);
  };
  // 1. Each tile of the row sorted ascending, into scratch (the lanes past
  // the row too: they order last, so they stay at the row's end).
  JFT_RETURN_IF_ERROR(overTiles(el, [&](const Value& lane) -> Status {
    const int space = rowSpace(ix, base, lane);
    std::vector<Value> values;
    for (ir::ValueId v : op_->operands) {
      JFT_ASSIGN_OR_RETURN(Value x, el.emit(v, space));
      values.push_back(ix.broadcast(x, {lanes_}));
    }
    Value pos = positions(lane);
    JFT_RETURN_IF_ERROR(loopNetwork(ix, tileStart(lane), values, pos));
    storeTileScratch(lane, values, pos);
    return Status::ok();
  }));
  w_.line("gpu.barrier");
  // 2. Merges of sorted blocks of 2^(s-1) into 2^s: the mirror step and the
  // steps down to a tile apart through memory, the rest on each tile; the
  // last merge stores the outputs.
  for (int s = laneBits() + 1; s <= row_log; ++s) {
    const int64_t block = int64_t{1} << s;
    JFT_RETURN_IF_ERROR(globalPass(ix, row, block, -1));
    for (int64_t j = block / 4; j >= lanes_; j /= 2)
      JFT_RETURN_IF_ERROR(globalPass(ix, row, block, j));
    const bool last = s == row_log;
    JFT_RETURN_IF_ERROR(overTiles(el, [&](const Value& lane) -> Status {
      const Value at = ix.add(ix.splat(row, {lanes_}), lane);
      std::vector<Value> values;
      for (size_t k = 0; k < m; ++k)
        values.push_back(loadScratch(ix, k, at, std::nullopt));
      Value pos = loadScratch(ix, m, at, std::nullopt);
      JFT_RETURN_IF_ERROR(loopMerge(ix, tileStart(lane), values, pos));
      if (last) return storeOutputs(el, values, rowSpace(ix, base, lane));
      storeTileScratch(lane, values, pos);
      return Status::ok();
    }));
    if (!last) w_.line("gpu.barrier");
  }
  Launch launch;
  launch.grid = {static_cast<uint32_t>(rows_), 1, 1};
  launch.num_warps = 8;
  launch.tile = std::to_string(padded) + " in tiles of " + std::to_string(lanes_);
  return launch;
}

StatusOr<Launch> SortKernel::emit() {
  JFT_RETURN_IF_ERROR(check());
  if (lanes_ > kMaxSortRow)
    return internalError(fusion_.name + ": a long sort row on the one-tile path");
  const std::vector<int64_t>& full = module_.typeOf(op_->operands.at(0)).dims;
  const int64_t rows = rows_, inner = inner_;
  IndexBuilder ix(w_, {lanes_}, index_type_);
  Elemental el(ix, module_, fusion_, function_, signature_.inputs);
  const Value pid = ix.programId();
  const Value base = rowBase(ix, pid);
  const Value lane = ix.range(0);
  IndexSpace s;
  s.dims = full;
  s.linear = ix.add(ix.splat(base, {lanes_}), ix.mulConst(lane, inner));
  if (n_ != lanes_) s.bounds.push_back(ix.compareConst("slt", lane, n_));
  const int space = ix.intern(std::move(s));

  std::vector<Value> values;
  for (ir::ValueId v : op_->operands) {
    JFT_ASSIGN_OR_RETURN(Value x, el.emit(v, space));
    values.push_back(ix.broadcast(x, {lanes_}));
  }
  Value pos = lane;
  if (pos.scalar != "i32")
    pos = w_.op("arith.trunci " + pos.name + " : " + pos.type + " to " +
                    tensorType({lanes_}, "i32"),
                {lanes_}, "i32");
  const Value row_start =
      ix.splat(ix.scalarBinary("arith.muli", pid, ix.scalarConstant(lanes_)), {lanes_});
  JFT_RETURN_IF_ERROR(loopNetwork(ix, row_start, values, pos));
  JFT_RETURN_IF_ERROR(storeOutputs(el, values, space));
  Launch launch;
  launch.grid = {static_cast<uint32_t>(rows), 1, 1};
  launch.num_warps = lanes_ >= 2048 ? 8 : 4;
  launch.tile = std::to_string(lanes_);
  return launch;
}

}  // namespace

StatusOr<StagedKernels> emitSortKernels(const GroupInputs& group, bool register_steps) {
  JFT_ASSIGN_OR_RETURN(StageWriter plain, StageWriter::open(group));
  SortKernel kernel(plain.inputs(), register_steps);
  JFT_RETURN_IF_ERROR(kernel.check());
  StagedKernels staged;
  if (!kernel.longRow()) {
    staged.scratch = kernel.rowScratch();
    JFT_ASSIGN_OR_RETURN(StageWriter row, StageWriter::open(group, "", staged.scratch));
    SortKernel row_kernel(row.inputs(), register_steps);
    JFT_ASSIGN_OR_RETURN(Launch launch, row_kernel.emit());
    staged.stages.push_back(row.finish(std::move(launch)));
    return staged;
  }
  staged.scratch = kernel.rowScratch();
  JFT_ASSIGN_OR_RETURN(StageWriter long_row,
                       StageWriter::open(group, "", staged.scratch));
  SortKernel long_kernel(long_row.inputs(), register_steps);
  JFT_ASSIGN_OR_RETURN(Launch launch, long_kernel.emitLong());
  staged.stages.push_back(long_row.finish(std::move(launch)));
  return staged;
}

}  // namespace jft::codegen::ttir
