#include "codegen/ttir/reduction_emitter.h"

#include <algorithm>
#include <map>
#include <set>

#include "codegen/ttir/combiner_op.h"
#include "codegen/ttir/complex_emitter.h"
#include "codegen/ttir/elemental.h"
#include "codegen/ttir/elementwise.h"
#include "codegen/ttir/index_space.h"
#include "codegen/ttir/kernel_emitter.h"
#include "codegen/ttir/memory_access.h"
#include "codegen/ttir/reduction_layout.h"
#include "codegen/ttir/tile_choice.h"
#include "codegen/ttir/tile_ops.h"
#include "ir/op_kind.h"
#include "support/int_lists.h"

namespace jft::codegen::ttir {

namespace {

// One real accumulator of a reduce: operand `operand` of it, or part `part`
// (0 real, 1 imaginary) of that operand when it is complex. A complex
// operand is two lanes, combined by complex_emitter's combiner.
struct Lane {
  size_t operand = 0;
  int part = 0;
  ir::ElementType element;  // the lane's real element type
};

// Any complex result makes the combiner complex_emitter's (which refuses,
// with a reason, a reduce mixing complex and real operands).
bool isComplexReduce(const ir::Module& module, const ir::Op& op) {
  for (ir::ValueId r : op.results)
    if (ir::isComplex(module.typeOf(r).element)) return true;
  return false;
}

std::vector<Lane> lanesOf(const ir::Module& module, const ir::Op& op) {
  std::vector<Lane> lanes;
  for (size_t i = 0; i < op.operands.size() / 2; ++i) {
    const ir::ElementType element = module.typeOf(op.results.at(i)).element;
    if (!ir::isComplex(element)) {
      lanes.push_back({i, 0, element});
      continue;
    }
    for (int part = 0; part < 2; ++part)
      lanes.push_back({i, part, ir::complexComponent(element)});
  }
  return lanes;
}

// Which kernel of the group this is: the whole reduction, or one of the two
// stages of a split one (reduction_emitter.h).
enum class Stage { kWhole, kPartials, kFinish };

class ReductionKernel : KernelEmitter {
 public:
  explicit ReductionKernel(const KernelInputs& in, Stage stage = Stage::kWhole,
                           ReductionSplit split = {})
      : KernelEmitter(in), stage_(stage), split_(split) {}

  // The group's shape and tile (emit() runs it when not yet done).
  Status analyse();
  StatusOr<Launch> emit();

  int64_t keptCount() const { return kept_count_; }
  int64_t reducedCount() const { return reduced_count_; }
  const ReductionTile& tile() const { return tile_; }
  bool wholeRow() const { return whole_row_; }
  // The element type of each accumulator, reduce by reduce.
  std::vector<ir::ElementType> accumulatorTypes() const;

 private:
  bool keptAxisIsContiguous() const;
  bool dependsOnReduce(ir::ValueId value, std::set<ir::ValueId>& seen) const;
  // The reduce's [BO, 1] results at a space of its result shape.
  StatusOr<Value> reduceAt(const ir::Op& op, size_t result, int space, int part);
  // The space over F whose kept components are those of `kept_space` and
  // reduced ones come from `k` ([1, BK]).
  StatusOr<int> fullSpace(int kept_space, const Value& k);  // memoised
  StatusOr<int> makeFullSpace(int kept_space, const Value& k);
  // `kept_space` without masks along the reduced tile axis (a reduce result
  // does not vary along it).
  StatusOr<int> keptOnly(int kept_space);
  StatusOr<std::vector<Value>> reduceTile(const ir::Op& op, int full_space, int axis,
                                          const std::vector<Value>* accumulators);
  StatusOr<std::vector<Value>> joinedReduce(const ir::Op& op,
                                            const std::vector<Value>& accumulators,
                                            const std::vector<Value>& values);
  StatusOr<std::vector<Value>> ttReduce(const ir::Op& op,
                                        const std::vector<Value>& operands, int axis);
  // The reduce's combiner on lanes (scalars or tiles of one shape).
  StatusOr<std::vector<Value>> combine(const ir::Op& op, const std::vector<Value>& acc,
                                       const std::vector<Value>& value);
  // `chunk` (a scalar): walk only that chunk of the reduced extent.
  Status emitLoop(int kept_space, const std::optional<Value>& chunk = std::nullopt);
  // The finishing stage: each reduce's partial results read from scratch
  // and reduced with its combiner.
  Status reducePartials(int kept_space);
  // The partial stage: this program's chunk reduced, stored to scratch.
  Status storePartials(int kept_space, const Value& o, const Value& chunk);
  // Where output `i` is stored when F's index is `full_space`.
  int outputSpace(size_t i, int full_space);
  // Output `i`, computed as `value` at `value_space`, stored at
  // `store_space` part by part.
  Status storeOutput(size_t i, ir::ValueId value, int value_space, int store_space);
  // An output of F's size at F's index `full_space`.
  Status storeFullOutput(size_t i, int full_space);
  // The streamed outputs at `full_space` (inside the loop over the reduced
  // extent), once per kernel.
  Status storeStreamed(int full_space);

  Stage stage_ = Stage::kWhole;
  ReductionSplit split_;
  bool analysed_ = false;

  std::vector<const ir::Op*> reduces_;
  std::vector<int64_t> full_;     // F
  std::vector<int64_t> reduced_;  // D, ascending
  std::vector<int64_t> kept_;     // K
  int64_t kept_count_ = 1, reduced_count_ = 1;
  bool minor_ = false, major_ = false, whole_row_ = false;
  // Outputs of F's size that need no reduce result: stored chunk by chunk
  // where the loop reads F (by the partials stage when split), so they never
  // force the whole reduced extent into one tile.
  std::vector<size_t> streamed_;
  bool streamed_stored_ = false;
  ReductionTile tile_;

  std::optional<IndexBuilder> index_;
  std::optional<Elemental> elemental_;
  std::optional<Value> k_bound_;
  // Results of each reduce op at each kept space, lane by lane.
  std::map<std::pair<const ir::Op*, int>, std::vector<Value>> results_;
  std::map<std::string, std::vector<Value>> k_comps_;
  std::map<std::string, int> full_spaces_;
};

std::vector<ir::ElementType> ReductionKernel::accumulatorTypes() const {
  std::vector<ir::ElementType> types;
  for (const ir::Op* op : reduces_)
    for (const Lane& lane : lanesOf(module_, *op)) types.push_back(lane.element);
  return types;
}

Status ReductionKernel::analyse() {
  if (analysed_) return Status::ok();
  analysed_ = true;
  for (size_t at : fusion_.ops) {
    const ir::Op& op = function_.body.ops[at];
    if (op.kind != ir::OpKind::Reduce) continue;
    std::vector<int64_t> dims = intsAttr(op, "dimensions");
    std::sort(dims.begin(), dims.end());
    const std::vector<int64_t>& full = module_.typeOf(op.operands.at(0)).dims;
    if (reduces_.empty()) {
      full_ = full;
      reduced_ = dims;
    } else if (full != full_ || dims != reduced_) {
      return unimplemented(
          "stablehlo.reduce: one reduction kernel holds reduces over one "
          "shape and one set of dims (" +
          module_.typeOf(op.operands[0]).str() + " differs)");
    }
    if (op.regions.size() != 1 || op.operands.size() % 2 != 0)
      return unimplemented("stablehlo.reduce without one combiner region");
    reduces_.push_back(&op);
  }
  if (reduces_.empty())
    return unimplemented(fusion_.name + ": a reduction group without a reduce");
  for (size_t d = 0; d < full_.size(); ++d) {
    if (std::binary_search(reduced_.begin(), reduced_.end(), static_cast<int64_t>(d))) {
      reduced_count_ *= full_[d];
    } else {
      kept_.push_back(full_[d]);
      kept_count_ *= full_[d];
    }
  }
  const int64_t rank = static_cast<int64_t>(full_.size()),
                n = static_cast<int64_t>(reduced_.size());
  minor_ = major_ = true;
  for (int64_t i = 0; i < n; ++i) {
    minor_ = minor_ && reduced_[i] == rank - n + i;
    major_ = major_ && reduced_[i] == i;
  }
  for (size_t i = 0; i < fusion_.outputs.size(); ++i) {
    const ir::ValueId out = fusion_.outputs[i];
    const int64_t count = module_.typeOf(out).numElements();
    if (count == kept_count_) continue;
    if (count != product(full_))
      return unimplemented(fusion_.name + ": output " + module_.typeOf(out).str() +
                           " is neither of the reduced nor of the full size");
    std::set<ir::ValueId> seen;
    if (dependsOnReduce(out, seen))
      whole_row_ = true;
    else
      streamed_.push_back(i);
  }
  for (const ir::Op* op : reduces_) {
    std::set<ir::ValueId> seen;
    for (ir::ValueId v : op->operands)
      whole_row_ = whole_row_ || dependsOnReduce(v, seen);
  }
  tile_ = chooseReductionTile(kept_count_, reduced_count_,
                              minor_ && !keptAxisIsContiguous(), whole_row_);
  if (stage_ == Stage::kFinish) tile_ = chooseSplitFinishTile(kept_count_, split_.chunks);
  if (whole_row_ && tile_.looped)
    return unimplemented(fusion_.name + ": a reduced extent of " +
                         std::to_string(reduced_count_) +
                         " elements does not fit one tile, and values of the full shape "
                         "need the reduce's result");
  return Status::ok();
}

// A reduce over the logical minor axis whose input is contiguous along a
// kept axis (reduce(transpose(x)) with x's minor axis kept) reads coalesced
// only through a column tile.
bool ReductionKernel::keptAxisIsContiguous() const {
  const std::optional<int64_t> axis =
      contiguousAxis(module_, function_, fusion_, reduces_.front()->operands.at(0));
  return axis && !std::binary_search(reduced_.begin(), reduced_.end(), *axis);
}

bool ReductionKernel::dependsOnReduce(ir::ValueId value,
                                      std::set<ir::ValueId>& seen) const {
  if (!seen.insert(value).second) return false;
  const ir::Op* op = elemental_ ? elemental_->definingOp(value) : nullptr;
  if (!op) {
    for (size_t at : fusion_.ops)
      for (ir::ValueId r : function_.body.ops[at].results)
        if (r == value) op = &function_.body.ops[at];
  }
  if (!op) return false;
  if (op->kind == ir::OpKind::Reduce) return true;
  for (ir::ValueId v : op->operands)
    if (dependsOnReduce(v, seen)) return true;
  return false;
}

StatusOr<int> ReductionKernel::keptOnly(int kept_space) {
  IndexSpace s = index_->space(kept_space);
  std::vector<Value> bounds;
  for (const Value& b : s.bounds)
    if (b.shape.at(1) == 1) bounds.push_back(b);
  if (s.valid && s.valid->shape.at(1) != 1)
    return unimplemented(
        "stablehlo.reduce read under a mask that varies along the reduced axis");
  s.bounds = bounds;
  return index_->intern(std::move(s));
}

StatusOr<int> ReductionKernel::fullSpace(int kept_space, const Value& k) {
  const std::string key = std::to_string(kept_space) + "@" + k.name;
  if (auto it = full_spaces_.find(key); it != full_spaces_.end()) return it->second;
  JFT_ASSIGN_OR_RETURN(int id, makeFullSpace(kept_space, k));
  full_spaces_[key] = id;
  return id;
}

StatusOr<int> ReductionKernel::makeFullSpace(int kept_space, const Value& k) {
  IndexBuilder& ix = *index_;
  std::vector<Value>& k_comps = k_comps_[k.name];
  if (k_comps.empty()) {
    std::vector<int64_t> dims;
    for (int64_t d : reduced_) dims.push_back(full_[static_cast<size_t>(d)]);
    const std::vector<int64_t> strides = rowMajorStrides(dims);
    bool leading = true;
    for (size_t i = 0; i < dims.size(); ++i) {
      Value c =
          dims[i] == 1 ? ix.indexConstant(0, ix.ones()) : ix.divConst(k, strides[i]);
      if (dims[i] != 1 && !leading) c = ix.remConst(c, dims[i]);
      leading = leading && dims[i] == 1;
      k_comps.push_back(c);
    }
  }
  const std::vector<Value> reduced_comps = k_comps;
  IndexSpace f;
  f.dims = full_;
  size_t next_kept = 0, next_reduced = 0;
  for (size_t d = 0; d < full_.size(); ++d) {
    if (std::binary_search(reduced_.begin(), reduced_.end(), static_cast<int64_t>(d))) {
      f.comps.emplace_back(reduced_comps[next_reduced++]);
    } else {
      Value c = ix.component(kept_space, next_kept++);
      if (c.shape.at(1) != 1)
        return unimplemented(
            "stablehlo.reduce result read at an index that varies along "
            "the reduced axis");
      f.comps.emplace_back(c);
    }
  }
  const IndexSpace kept = ix.space(kept_space);
  if (minor_ || major_) {
    const Value o = ix.linear(kept_space);
    f.linear = minor_ ? ix.add(ix.mulConst(o, reduced_count_), k)
                      : ix.add(ix.mulConst(k, kept_count_), o);
  }
  f.bounds = kept.bounds;
  if (k_bound_) f.bounds.push_back(*k_bound_);
  f.valid = kept.valid;
  return ix.intern(std::move(f));
}

StatusOr<std::vector<Value>> ReductionKernel::ttReduce(const ir::Op& op,
                                                       const std::vector<Value>& operands,
                                                       int axis) {
  return combinerOp(w_, "tt.reduce", operands, axis,
                    [&](const std::vector<Value>& lhs, const std::vector<Value>& rhs) {
                      return combine(op, lhs, rhs);
                    });
}

StatusOr<std::vector<Value>> ReductionKernel::combine(const ir::Op& op,
                                                      const std::vector<Value>& acc,
                                                      const std::vector<Value>& value) {
  if (isComplexReduce(module_, op))
    return emitComplexCombiner(w_, module_, op.regions[0], acc, value);
  std::vector<Value> args = acc;
  args.insert(args.end(), value.begin(), value.end());
  return emitScalarRegion(w_, module_, op.regions[0], args);
}

// The operands of `op` at `full_space`, lanes outside it set to the init
// values; reduced along `axis` with tt.reduce, or (with `accumulators`)
// combined lane by lane into them (a size-2 reduce of the joined pair).
StatusOr<std::vector<Value>> ReductionKernel::reduceTile(
    const ir::Op& op, int full_space, int axis, const std::vector<Value>* accumulators) {
  IndexBuilder& ix = *index_;
  const size_t n = op.operands.size() / 2;
  const std::vector<int64_t> tile = ix.tile();
  const std::optional<Value> mask = ix.fullMask(full_space);
  const std::vector<Lane> lanes = lanesOf(module_, op);
  std::vector<Value> values;
  for (const Lane& lane : lanes) {
    JFT_ASSIGN_OR_RETURN(
        Value v, elemental_->emitPart(op.operands[lane.operand], full_space, lane.part));
    v = ix.broadcast(v, tile);
    if (mask && !accumulators) {
      JFT_ASSIGN_OR_RETURN(Value init, elemental_->emitPart(op.operands[n + lane.operand],
                                                            full_space, lane.part));
      v = ix.select(*mask, v, init);
    }
    values.push_back(v);
  }
  if (!accumulators) return ttReduce(op, values, axis);
  // The combiner applied lane by lane on whole tiles (its ops are elementwise
  // on any shape); a combiner holding constants (written as scalars) goes
  // through a size-2 reduce of the joined pair instead.
  bool has_constant = false;
  for (const ir::Op& inner : op.regions[0].ops)
    has_constant = has_constant || inner.kind == ir::OpKind::Constant;
  std::vector<Value> combined;
  if (!has_constant) {
    JFT_ASSIGN_OR_RETURN(combined, combine(op, *accumulators, values));
  } else {
    JFT_ASSIGN_OR_RETURN(combined, joinedReduce(op, *accumulators, values));
  }
  if (!mask) return combined;
  // Lanes outside the shape keep their accumulator: exact for any init.
  for (size_t i = 0; i < lanes.size(); ++i)
    combined[i] = ix.select(ix.broadcast(*mask, tile), combined[i], (*accumulators)[i]);
  return combined;
}

StatusOr<std::vector<Value>> ReductionKernel::joinedReduce(
    const ir::Op& op, const std::vector<Value>& accumulators,
    const std::vector<Value>& values) {
  const size_t n = values.size();
  std::vector<Value> pairs;
  for (size_t i = 0; i < n; ++i) {
    std::vector<int64_t> shape = values[i].shape;
    shape.push_back(2);
    const Value& a = accumulators[i];
    pairs.push_back(w_.op("tt.join " + a.name + ", " + values[i].name + " : " + a.type +
                              " -> " + tensorType(shape, a.scalar),
                          shape, a.scalar));
  }
  return ttReduce(op, pairs, 2);
}

StatusOr<Value> ReductionKernel::reduceAt(const ir::Op& op, size_t result, int space,
                                          int part) {
  JFT_ASSIGN_OR_RETURN(int kept, keptOnly(space));
  auto key = std::make_pair(&op, kept);
  if (auto it = results_.find(key); it == results_.end()) {
    if (stage_ == Stage::kFinish) {
      JFT_RETURN_IF_ERROR(reducePartials(kept));
    } else if (tile_.looped) {
      JFT_RETURN_IF_ERROR(emitLoop(kept));
    } else {
      JFT_ASSIGN_OR_RETURN(int full, fullSpace(kept, index_->range(1)));
      JFT_ASSIGN_OR_RETURN(std::vector<Value> reduced, reduceTile(op, full, 1, nullptr));
      for (Value& r : reduced) r = expandDims(w_, r, 1);
      results_[key] = reduced;
    }
  }
  const std::vector<Lane> lanes = lanesOf(module_, op);
  for (size_t i = 0; i < lanes.size(); ++i)
    if (lanes[i].operand == result && lanes[i].part == part)
      return results_.at(key).at(i);
  return internalError("stablehlo.reduce: no lane for result " + std::to_string(result));
}

Status ReductionKernel::emitLoop(int kept, const std::optional<Value>& chunk) {
  IndexBuilder& ix = *index_;
  const std::vector<int64_t> tile = ix.tile();
  // Accumulators start at the init values, one per operand of every reduce.
  std::vector<Value> inits;
  for (const ir::Op* op : reduces_) {
    const size_t n = op->operands.size() / 2;
    for (const Lane& lane : lanesOf(module_, *op)) {
      JFT_ASSIGN_OR_RETURN(
          Value init,
          elemental_->emitPart(op->operands[n + lane.operand], kept, lane.part));
      inits.push_back(ix.broadcast(init, tile));
    }
  }
  Value lower = ix.scalarConstant(0), upper = ix.scalarConstant(reduced_count_);
  const Value step = ix.scalarConstant(tile_.reduced);
  if (chunk) {
    lower = ix.scalarBinary("arith.muli", *chunk, ix.scalarConstant(split_.chunk));
    upper = ix.scalarBinary("arith.addi", lower, ix.scalarConstant(split_.chunk));
  }
  const std::string name = w_.freshName(), k0 = w_.freshName();
  std::string iter, types;
  std::vector<Value> accs, results;
  for (size_t i = 0; i < inits.size(); ++i) {
    accs.push_back(Value{w_.freshName(), inits[i].type, tile, inits[i].scalar});
    iter += (i ? ", " : "") + accs[i].name + " = " + inits[i].name;
    types += (i ? ", " : "") + inits[i].type;
    results.push_back(Value{inits.size() == 1 ? name : name + "#" + std::to_string(i),
                            inits[i].type, tile, inits[i].scalar});
  }
  const std::string count = inits.size() > 1 ? ":" + std::to_string(inits.size()) : "";
  w_.open(name + count + " = scf.for " + k0 + " = " + lower.name + " to " + upper.name +
          " step " + step.name + " iter_args(" + iter + ") -> (" + types +
          ") : " + index_type_ + " {");
  const Elemental::State saved = elemental_->save();
  const std::map<std::string, std::vector<Value>> saved_k = k_comps_;
  const std::map<std::string, int> saved_full = full_spaces_;
  const Value k = ix.add(ix.splat(Value{k0, index_type_, {}, index_type_}, {1, tile[1]}),
                         ix.range(1));
  k_bound_.reset();
  const int64_t walked = chunk ? split_.chunks * split_.chunk : reduced_count_;
  if (walked % tile_.reduced != 0 || walked > reduced_count_)
    k_bound_ = ix.compareConst("slt", k, reduced_count_);
  JFT_ASSIGN_OR_RETURN(int full, fullSpace(kept, k));
  std::vector<Value> next;
  size_t at = 0;
  for (const ir::Op* op : reduces_) {
    const size_t n = lanesOf(module_, *op).size();
    std::vector<Value> mine(accs.begin() + at, accs.begin() + at + n);
    JFT_ASSIGN_OR_RETURN(std::vector<Value> combined, reduceTile(*op, full, 1, &mine));
    next.insert(next.end(), combined.begin(), combined.end());
    at += n;
  }
  JFT_RETURN_IF_ERROR(storeStreamed(full));
  std::string yields;
  for (size_t i = 0; i < next.size(); ++i) yields += (i ? ", " : "") + next[i].name;
  w_.line("scf.yield " + yields + " : " + types);
  w_.close("}");
  elemental_->restore(saved);
  k_comps_ = saved_k;
  full_spaces_ = saved_full;
  k_bound_.reset();
  at = 0;
  for (const ir::Op* op : reduces_) {
    const size_t n = lanesOf(module_, *op).size();
    std::vector<Value> lanes(results.begin() + at, results.begin() + at + n);
    JFT_ASSIGN_OR_RETURN(std::vector<Value> reduced, ttReduce(*op, lanes, 1));
    for (Value& r : reduced) r = expandDims(w_, r, 1);
    results_[std::make_pair(op, kept)] = reduced;
    at += n;
  }
  return Status::ok();
}

StatusOr<Launch> ReductionKernel::emit() {
  JFT_RETURN_IF_ERROR(analyse());
  index_.emplace(w_, std::vector<int64_t>{tile_.kept, tile_.reduced}, index_type_);
  IndexBuilder& ix = *index_;
  elemental_.emplace(ix, module_, fusion_, function_, signature_.inputs);
  elemental_->reduce_hook = [this](const ir::Op& op, size_t result, int space, int part) {
    return reduceAt(op, result, space, part);
  };
  const int64_t programs = (kept_count_ + tile_.kept - 1) / tile_.kept;
  const Value pid = ix.programId();
  // The partial stage's programs: kept tile pid % programs, chunk pid / programs.
  Value kept_tile = pid;
  std::optional<Value> chunk;
  if (stage_ == Stage::kPartials && programs > 1) {
    kept_tile = ix.scalarBinary("arith.remsi", pid, ix.scalarConstant(programs));
    chunk = ix.scalarBinary("arith.divsi", pid, ix.scalarConstant(programs));
  } else if (stage_ == Stage::kPartials) {
    chunk = pid;
  }
  Value o = ix.range(0);
  if (programs > 1)
    o = ix.add(
        ix.splat(ix.scalarBinary("arith.muli", kept_tile, ix.scalarConstant(tile_.kept)),
                 {tile_.kept, 1}),
        o);
  std::vector<Value> o_bounds;
  if (kept_count_ % tile_.kept != 0)
    o_bounds.push_back(ix.compareConst("slt", o, kept_count_));
  if (stage_ == Stage::kWhole && !tile_.looped &&
      (reduced_count_ % tile_.reduced != 0 || reduced_count_ == 0))
    k_bound_ = ix.compareConst("slt", ix.range(1), reduced_count_);
  auto keptSpace = [&](const std::vector<int64_t>& dims) {
    if (dims.empty()) return elemental_->scalarSpace();
    IndexSpace s;
    s.dims = dims;
    s.linear = o;
    s.bounds = o_bounds;
    if (dims.size() == 1) s.comps = {o};
    return ix.intern(std::move(s));
  };
  const int kept = keptSpace(kept_);
  if (stage_ == Stage::kPartials) {
    JFT_RETURN_IF_ERROR(storePartials(kept, o, *chunk));
    Launch launch;
    launch.grid = {static_cast<uint32_t>(programs * split_.chunks), 1, 1};
    launch.num_warps = tile_.num_warps;
    launch.tile = std::to_string(tile_.kept) + "x" + std::to_string(tile_.reduced) +
                  " looped, " + std::to_string(split_.chunks) + " chunks of " +
                  std::to_string(split_.chunk);
    return launch;
  }
  // Streamed outputs: the partials stored them for the finishing stage; a
  // loop stores them as it walks (run here when no output asks for a
  // reduce); a single tile stores them at its F index.
  if (stage_ == Stage::kFinish) streamed_stored_ = true;
  if (!streamed_stored_ && !streamed_.empty()) {
    if (tile_.looped) {
      JFT_ASSIGN_OR_RETURN(int only, keptOnly(kept));
      JFT_RETURN_IF_ERROR(emitLoop(only));
    } else {
      JFT_ASSIGN_OR_RETURN(int f, fullSpace(kept, ix.range(1)));
      JFT_RETURN_IF_ERROR(storeStreamed(f));
    }
  }
  std::optional<int> full;
  if (whole_row_) {
    JFT_ASSIGN_OR_RETURN(int f, fullSpace(kept, ix.range(1)));
    full = f;
  }
  for (size_t i = 0; i < fusion_.outputs.size(); ++i) {
    if (std::find(streamed_.begin(), streamed_.end(), i) != streamed_.end()) continue;
    const ir::Type& type = module_.typeOf(fusion_.outputs[i]);
    if (type.numElements() == kept_count_) {
      const int space = keptSpace(type.dims);
      JFT_RETURN_IF_ERROR(storeOutput(i, fusion_.outputs[i], space, space));
    } else {
      JFT_RETURN_IF_ERROR(storeFullOutput(i, *full));
    }
  }
  Launch launch;
  launch.grid = {static_cast<uint32_t>(programs), 1, 1};
  launch.num_warps = tile_.num_warps;
  launch.tile = std::to_string(tile_.kept) + "x" + std::to_string(tile_.reduced);
  if (tile_.looped) launch.tile += " looped";
  if (stage_ == Stage::kFinish) launch.tile += " of partials";
  return launch;
}

int ReductionKernel::outputSpace(size_t i, int full_space) {
  const ir::Type& type = module_.typeOf(fusion_.outputs[i]);
  if (type.dims == full_) return full_space;
  // An output of F's size but another shape: stored at F's linear index.
  IndexBuilder& ix = *index_;
  IndexSpace s;
  s.dims = type.dims;
  s.linear = ix.linear(full_space);
  s.bounds = ix.space(full_space).bounds;
  return ix.intern(std::move(s));
}

Status ReductionKernel::storeOutput(size_t i, ir::ValueId value, int value_space,
                                    int store_space) {
  const ir::Type& type = module_.typeOf(fusion_.outputs[i]);
  // A complex output is stored one part at a time.
  for (int part = 0; part < (ir::isComplex(type.element) ? 2 : 1); ++part) {
    JFT_ASSIGN_OR_RETURN(Value v, elemental_->emitPart(value, value_space, part));
    elemental_->store(signature_.outputs[i], type.element, v, store_space, part);
  }
  return Status::ok();
}

Status ReductionKernel::storeFullOutput(size_t i, int full_space) {
  const int store_space = outputSpace(i, full_space);
  // A reshape of an F-shaped value has its bytes in F's row-major order: the
  // value is read at F's index, as the reduce reads it, rather than
  // re-derived from the linear one.
  ir::ValueId value = fusion_.outputs[i];
  for (const ir::Op* op = elemental_->definingOp(value);
       op != nullptr && op->kind == ir::OpKind::Reshape;
       op = elemental_->definingOp(value))
    value = op->operands.at(0);
  if (module_.typeOf(value).dims == full_)
    return storeOutput(i, value, full_space, store_space);
  return storeOutput(i, fusion_.outputs[i], store_space, store_space);
}

Status ReductionKernel::storeStreamed(int full_space) {
  if (streamed_stored_) return Status::ok();
  streamed_stored_ = true;
  for (size_t i : streamed_) JFT_RETURN_IF_ERROR(storeFullOutput(i, full_space));
  return Status::ok();
}

Status ReductionKernel::storePartials(int kept, const Value& o, const Value& chunk) {
  IndexBuilder& ix = *index_;
  JFT_ASSIGN_OR_RETURN(int only, keptOnly(kept));
  JFT_RETURN_IF_ERROR(emitLoop(only, chunk));
  // Partial j of accumulator a at a's scratch [chunk * kept_count + o].
  IndexSpace s;
  s.dims = {split_.chunks, kept_count_};
  s.linear = ix.add(
      ix.splat(ix.scalarBinary("arith.muli", chunk, ix.scalarConstant(kept_count_)),
               o.shape),
      o);
  if (kept_count_ % tile_.kept != 0)
    s.bounds.push_back(ix.compareConst("slt", o, kept_count_));
  const int at = ix.intern(std::move(s));
  size_t next = 0;
  for (const ir::Op* op : reduces_) {
    const std::vector<Value>& partial = results_.at(std::make_pair(op, only));
    const std::vector<Lane> lanes = lanesOf(module_, *op);
    for (size_t i = 0; i < partial.size(); ++i, ++next)
      elemental_->store(signature_.scratch.at(next), lanes.at(i).element, partial[i], at);
  }
  return Status::ok();
}

Status ReductionKernel::reducePartials(int kept) {
  IndexBuilder& ix = *index_;
  TtirWriter& w = w_;
  const std::vector<int64_t> tile = ix.tile();
  // [BO, 1] kept positions by [1, BS] chunks: offset s * kept_count + o.
  const Value o = ix.linear(kept);
  const Value s = ix.range(1);
  const Value offset = ix.broadcast(ix.add(ix.mulConst(s, kept_count_), o), tile);
  std::optional<Value> mask = ix.fullMask(kept);
  if (split_.chunks != tile[1]) {
    const Value in = ix.compareConst("slt", s, split_.chunks);
    mask = mask ? ix.both(*mask, in) : in;
  }
  if (mask) mask = ix.broadcast(*mask, tile);
  size_t next = 0;
  for (const ir::Op* op : reduces_) {
    const size_t n = op->operands.size() / 2;
    std::vector<Value> values;
    for (const Lane& lane : lanesOf(module_, *op)) {
      const ir::ElementType element = lane.element;
      Value v =
          loadTile(ix, element,
                   pointerTile(w, signature_.scratch.at(next), element, offset), mask);
      if (mask) {
        JFT_ASSIGN_OR_RETURN(
            Value init,
            elemental_->emitPart(op->operands[n + lane.operand], kept, lane.part));
        v = ix.select(*mask, v, ix.broadcast(init, tile));
      }
      values.push_back(v);
      ++next;
    }
    JFT_ASSIGN_OR_RETURN(std::vector<Value> reduced, ttReduce(*op, values, 1));
    for (Value& r : reduced) r = expandDims(w, r, 1);
    results_[std::make_pair(op, kept)] = reduced;
  }
  return Status::ok();
}

}  // namespace

StatusOr<StagedKernels> emitReductionKernels(const GroupInputs& group) {
  JFT_ASSIGN_OR_RETURN(StageWriter plain, StageWriter::open(group));
  ReductionKernel whole(plain.inputs());
  JFT_RETURN_IF_ERROR(whole.analyse());
  const ReductionSplit split =
      whole.wholeRow()
          ? ReductionSplit{}
          : chooseReductionSplit(whole.keptCount(), whole.reducedCount(), whole.tile());
  StagedKernels staged;
  if (split.chunks <= 1) {
    JFT_ASSIGN_OR_RETURN(Launch launch, whole.emit());
    staged.stages.push_back(plain.finish(std::move(launch)));
    return staged;
  }
  for (ir::ElementType element : whole.accumulatorTypes())
    staged.scratch.push_back({static_cast<uint64_t>(split.chunks * whole.keptCount() *
                                                    ir::storageBytes(element)),
                              memoryType(element)});
  for (Stage stage : {Stage::kPartials, Stage::kFinish}) {
    JFT_ASSIGN_OR_RETURN(
        StageWriter part,
        StageWriter::open(group, stage == Stage::kPartials ? "_partials" : "",
                          staged.scratch));
    ReductionKernel kernel(part.inputs(), stage, split);
    JFT_ASSIGN_OR_RETURN(Launch launch, kernel.emit());
    staged.stages.push_back(part.finish(std::move(launch)));
  }
  return staged;
}

}  // namespace jft::codegen::ttir
