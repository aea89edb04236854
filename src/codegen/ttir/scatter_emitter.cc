#include "codegen/ttir/scatter_emitter.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "codegen/ttir/elemental.h"
#include "codegen/ttir/elementwise.h"
#include "codegen/ttir/index_space.h"
#include "codegen/ttir/kernel_emitter.h"
#include "fusion/scatter_form.h"
#include "support/int_lists.h"

namespace jft::codegen::ttir {

namespace {

constexpr int64_t kChunk = 1024;

uint32_t programsFor(int64_t count);

// How the update stage runs.
enum class UpdateOrder {
  kAtomic,    // grid-parallel over updates, atomics or CAS loops
  kByWindow,  // in order: programs own window offsets, walk rows in turn
  kOneByOne,  // in order: one program walks every update in turn
};

// kAtomic unless deterministic results were asked for and the combiner's
// result depends on the order (fusion/scatter_form.h). A group that is not
// a scatter falls through to check(), which refuses it.
UpdateOrder updateOrderOf(const ir::Module& module, const ir::Function& function,
                          const fusion::Fusion& fusion, bool deterministic) {
  if (!deterministic || fusion.ops.empty()) return UpdateOrder::kAtomic;
  const ir::Op& op = function.body.ops.at(fusion.ops.back());
  if (op.kind != ir::OpKind::Scatter || !fusion::scatterOrderDependent(module, op))
    return UpdateOrder::kAtomic;
  return fusion::scatterWindowsDisjoint(module, op) ? UpdateOrder::kByWindow
                                                    : UpdateOrder::kOneByOne;
}

class ScatterKernel : KernelEmitter {
 public:
  // `lanes`: the tile, kChunk but for kOneByOne's single lane.
  ScatterKernel(const KernelInputs& in, UpdateOrder order)
      : KernelEmitter(in),
        order_(order),
        lanes_(order == UpdateOrder::kOneByOne ? 1 : kChunk),
        ix_(w_, {lanes_}, index_type_),
        el_(ix_, module_, fusion_, function_, signature_.inputs) {}

  // The stages' bodies (after check()): the operand into the result, then
  // the updates into it.
  Status check();
  StatusOr<Launch> emitCopy();
  StatusOr<Launch> emitUpdates();

 private:
  // This program's chunk of [0, count): kChunk lane positions.
  Value programLanes();
  Status copyOperand();
  Status applyUpdates(int64_t count);
  // The deterministic update stage (kByWindow, kOneByOne).
  StatusOr<Launch> applyInOrder();
  // One step of it: row `row` (scalar) at window offsets `offsets` ([lanes_]).
  Status applyRow(const Value& row, const Value& offsets);
  // The operand index of each lane of `update_space`, and whether its
  // window lies inside the operand.
  StatusOr<std::pair<Value, std::optional<Value>>> target(int update_space);
  Status combine(const Value& address, const Value& value, const Value& mask);
  // Combiners with no atomic: a compare-and-swap loop per lane.
  Status casCombine(const Value& base, const Value& offset, const Value& value,
                    const Value& mask);
  Value wordElement(const Value& word, const Value& shift, int bits, const Value& like);
  Value withWordElement(const Value& word, const Value& shift, int bits,
                        const Value& element);

  UpdateOrder order_;
  int64_t lanes_;
  IndexBuilder ix_;
  Elemental el_;
  const ir::Op* op_ = nullptr;
  const ir::ScatterDimensionNumbers* dn_ = nullptr;
  ir::ElementType element_ = ir::ElementType::F32;
  // The real type of what one lane combines: element_, or its component for
  // a complex scatter (set and add, part by part: complex_emitter.h).
  ir::ElementType part_element_ = ir::ElementType::F32;
  int parts_ = 1;
  fusion::ScatterCombine combine_ = fusion::ScatterCombine::kOther;
  bool cas_ = false;
};

Value ScatterKernel::programLanes() {
  const Value pid = ix_.programId();
  const Value first = ix_.scalarBinary("arith.muli", pid, ix_.scalarConstant(lanes_));
  return ix_.add(ix_.splat(first, {lanes_}), ix_.range(0));
}

Status ScatterKernel::copyOperand() {
  const std::vector<int64_t>& dims = module_.typeOf(op_->operands[0]).dims;
  const int64_t count = product(dims);
  const Value lane = programLanes();
  IndexSpace s;
  s.dims = dims;
  s.linear = lane;
  if (dims.size() == 1) s.comps = {lane};
  if (count % kChunk != 0) s.bounds.push_back(ix_.compareConst("slt", lane, count));
  const int space = dims.empty() ? el_.scalarSpace() : ix_.intern(std::move(s));
  int at = space;
  if (dims.empty()) {
    // One element: every lane would store it; lane 0 does.
    IndexSpace one;
    one.dims = {1};
    one.linear = lane;
    one.bounds.push_back(ix_.compareConst("slt", lane, 1));
    at = ix_.intern(std::move(one));
  }
  for (int part = 0; part < parts_; ++part) {
    JFT_ASSIGN_OR_RETURN(Value v, el_.emitPart(op_->operands[0], space, part));
    el_.store(signature_.outputs[0], element_, v, at, part);
  }
  return Status::ok();
}

StatusOr<std::pair<Value, std::optional<Value>>> ScatterKernel::target(int update_space) {
  const std::vector<int64_t>& operand = module_.typeOf(op_->operands[0]).dims;
  const ir::Type& itype = module_.typeOf(op_->operands[1]);
  const std::vector<int64_t>& udims = module_.typeOf(op_->operands[2]).dims;
  const int64_t ivd = dn_->index_vector_dim;
  // Update dims that index the scatter (not window dims), in order.
  std::vector<Value> batch;
  for (size_t d = 0; d < udims.size(); ++d)
    if (!contains(dn_->update_window_dims, static_cast<int64_t>(d)))
      batch.push_back(ix_.component(update_space, d));
  // Window sizes per operand dim, and the window's index there.
  std::vector<int64_t> window(operand.size(), 1);
  std::vector<std::optional<Value>> comps(operand.size());
  size_t next = 0;
  for (size_t d = 0; d < operand.size(); ++d) {
    const int64_t di = static_cast<int64_t>(d);
    if (contains(dn_->inserted_window_dims, di) || contains(dn_->input_batching_dims, di))
      continue;
    const size_t ud = static_cast<size_t>(dn_->update_window_dims.at(next++));
    window[d] = udims.at(ud);
    comps[d] = ix_.component(update_space, ud);
  }
  for (size_t i = 0; i < dn_->input_batching_dims.size(); ++i) {
    const int64_t j = dn_->scatter_indices_batching_dims.at(i);
    comps.at(static_cast<size_t>(dn_->input_batching_dims[i])) =
        batch.at(static_cast<size_t>(j < ivd ? j : j - 1));
  }
  std::optional<Value> inside;
  const int bits = ir::bitWidth(itype.element);
  const bool is_unsigned = ir::isUnsignedInteger(itype.element);
  for (size_t k = 0; k < dn_->scatter_dims_to_operand_dims.size(); ++k) {
    std::vector<Value> icomps(itype.dims.size());
    for (size_t i = 0; i < batch.size(); ++i) {
      const int64_t j = static_cast<int64_t>(i);
      icomps.at(static_cast<size_t>(j < ivd ? j : j + 1)) = batch[i];
    }
    if (ivd < static_cast<int64_t>(itype.dims.size()))
      icomps[static_cast<size_t>(ivd)] =
          ix_.indexConstant(static_cast<int64_t>(k), ix_.ones());
    int ispace = el_.scalarSpace();
    if (!itype.dims.empty()) {
      IndexSpace s;
      s.dims = itype.dims;
      for (Value& c : icomps) s.comps.emplace_back(std::move(c));
      s.bounds = ix_.space(update_space).bounds;
      ispace = ix_.intern(std::move(s));
    }
    JFT_ASSIGN_OR_RETURN(Value start, el_.emit(op_->operands[1], ispace));
    const size_t d = static_cast<size_t>(dn_->scatter_dims_to_operand_dims[k]);
    // In range in the index's own type, before any truncation.
    const int64_t type_max =
        bits >= 64 ? std::numeric_limits<int64_t>::max()
                   : (is_unsigned && bits < 63 ? (int64_t{1} << bits) - 1
                                               : (int64_t{1} << (bits - 1)) - 1);
    const int64_t hi = std::min(operand[d] - window[d], type_max);
    Value ok = ix_.compare(is_unsigned ? "ule" : "sle", start,
                           ix_.constant(hi, start.shape, start.scalar));
    if (!is_unsigned)
      ok = ix_.both(
          ok, ix_.compare("sge", start, ix_.constant(0, start.shape, start.scalar)));
    inside = inside ? ix_.both(*inside, ok) : ok;
    const Value s = ix_.toIndex(start, is_unsigned);
    comps[d] = comps[d] ? ix_.add(*comps[d], s) : s;
  }
  const std::vector<int64_t> strides = rowMajorStrides(operand);
  std::optional<Value> linear;
  for (size_t d = 0; d < operand.size(); ++d) {
    if (!comps[d] || operand[d] == 1) continue;
    const Value term = ix_.mulConst(*comps[d], strides[d]);
    linear = linear ? ix_.add(*linear, term) : term;
  }
  return std::make_pair(linear ? *linear : ix_.indexConstant(0, ix_.ones()), inside);
}

Status ScatterKernel::combine(const Value& address, const Value& value,
                              const Value& mask) {
  using C = fusion::ScatterCombine;
  const std::string& t = value.scalar;
  auto rmw = [&](const std::string& kind, const Value& ptr, const Value& v,
                 const Value& m) {
    w_.op("tt.atomic_rmw " + kind + ", relaxed, gpu, " + ptr.name + ", " + v.name + ", " +
              m.name + " : (" + ptr.type + ", " + v.type + ", " + m.type + ") -> " +
              v.type,
          v.shape, v.scalar);
  };
  if (combine_ == C::kReplace) {
    const Value stored = registerToStored(w_, part_element_, value);
    w_.line("tt.store " + address.name + ", " + stored.name + ", " + mask.name + " : " +
            address.type);
    return Status::ok();
  }
  const bool is_float = ir::isFloat(part_element_);
  const bool is_unsigned = ir::isUnsignedInteger(part_element_);
  if (combine_ == C::kAdd) {
    rmw(is_float ? "fadd" : "add", address, value, mask);
    return Status::ok();
  }
  const bool is_max = combine_ == C::kMax;
  if (!is_float) {
    rmw(std::string(is_unsigned ? "u" : "") + (is_max ? "max" : "min"), address, value,
        mask);
    return Status::ok();
  }
  if (t != "f32") return unimplemented("scatter max/min of " + t);
  // f32 through its bits: non-negative floats order as signed integers,
  // negative ones reversed as unsigned integers (tl.atomic_max's method).
  const std::vector<int64_t> shape = value.shape;
  const Value ptr = w_.op("tt.bitcast " + address.name + " : " + address.type + " -> " +
                              tensorType(shape, "!tt.ptr<i32>"),
                          shape, "!tt.ptr<i32>");
  const Value bits = w_.op(
      "tt.bitcast " + value.name + " : " + value.type + " -> " + tensorType(shape, "i32"),
      shape, "i32");
  const Value zero =
      w_.op("arith.constant dense<0.000000e+00> : " + value.type, shape, t);
  const Value nonneg =
      w_.op("arith.cmpf oge, " + value.name + ", " + zero.name + " : " + value.type,
            shape, "i1");
  const Value neg =
      w_.op("arith.cmpf olt, " + value.name + ", " + zero.name + " : " + value.type,
            shape, "i1");
  rmw(is_max ? "max" : "min", ptr, bits, ix_.both(mask, nonneg));
  rmw(is_max ? "umin" : "umax", ptr, bits, ix_.both(mask, neg));
  return Status::ok();
}

// Each pending lane carries the memory word it last saw: it combines the
// element in that word with its update and swaps the new word in if memory
// still holds the old one; the swap returns what memory held, which is the
// next try's word (no reload, so no stale cached read). The loop runs while
// any lane of the program is pending. TTIR's tt.atomic_cas has no mask, so
// lanes not pending still swap, but a word for itself (compare == new:
// memory never changes): a lane done swaps at its word what it last saw; a
// masked-off lane (past the end, or an update dropped by the bounds check,
// whose index may be wild) at element 0's word, with the zeros its masked
// load read. The word is the element itself for 32/64-bit elements (floats
// through their bits, so a NaN or -0.0 compares as the bits it is) and the
// aligned 32-bit word holding the element for 8/16-bit ones, which have no
// compare-and-swap of their own: the other bytes of the word are swapped
// back as they were, and a neighbour's concurrent update makes the swap
// fail and retry, never lost.
Status ScatterKernel::casCombine(const Value& base, const Value& offset,
                                 const Value& value, const Value& mask) {
  const std::vector<int64_t> shape = value.shape;
  const std::string& t = value.scalar;
  const int element_bits =
      part_element_ == ir::ElementType::PRED ? 8 : ir::bitWidth(part_element_);
  const bool narrow = element_bits < 32;
  const std::string it = element_bits == 64 ? "i64" : "i32";
  const std::string itype = tensorType(shape, it);
  const std::string iptr = tensorType(shape, "!tt.ptr<" + it + ">");
  const Value zero_i = w_.op("arith.constant dense<0> : " + itype, shape, it);
  const Value zero_o = ix_.constant(0, offset.shape, offset.scalar);
  const Value safe_offset =
      w_.op("arith.select " + mask.name + ", " + offset.name + ", " + zero_o.name +
                " : " + mask.type + ", " + offset.type,
            offset.shape, offset.scalar);
  Value address = w_.op("tt.addptr " + base.name + ", " + safe_offset.name + " : " +
                            base.type + ", " + safe_offset.type,
                        shape, base.scalar);
  std::optional<Value> shift;  // of the element inside its word, in bits
  if (narrow) {
    const std::string i64 = tensorType(shape, "i64");
    const Value at =
        w_.op("tt.ptr_to_int " + address.name + " : " + address.type + " -> " + i64,
              shape, "i64");
    const Value word_at = w_.op(
        "arith.andi " + at.name + ", " +
            w_.op("arith.constant dense<-4> : " + i64, shape, "i64").name + " : " + i64,
        shape, "i64");
    const Value byte = w_.op(
        "arith.andi " + at.name + ", " +
            w_.op("arith.constant dense<3> : " + i64, shape, "i64").name + " : " + i64,
        shape, "i64");
    const Value byte32 =
        w_.op("arith.trunci " + byte.name + " : " + i64 + " to " + itype, shape, it);
    // Little-endian: byte b of the word holds bits [8b, 8b + 8).
    shift = w_.op("arith.muli " + byte32.name + ", " +
                      w_.op("arith.constant dense<8> : " + itype, shape, it).name +
                      " : " + itype,
                  shape, it);
    address = w_.op("tt.int_to_ptr " + word_at.name + " : " + i64 + " -> " + iptr, shape,
                    "!tt.ptr<" + it + ">");
  } else if (t != it) {
    address = w_.op("tt.bitcast " + address.name + " : " + address.type + " -> " + iptr,
                    shape, "!tt.ptr<" + it + ">");
  }
  const Value first = w_.op(
      "tt.load " + address.name + ", " + mask.name + ", " + zero_i.name + " : " + iptr,
      shape, it);
  const std::string pending = w_.freshName(), seen = w_.freshName();
  const std::string loop = w_.freshName();
  w_.open(loop + ":2 = scf.while (" + pending + " = " + mask.name + ", " + seen + " = " +
          first.name + ") : (" + mask.type + ", " + itype + ") -> (" + mask.type + ", " +
          itype + ") {");
  const Value p{pending, mask.type, shape, "i1"};
  const Value wide =
      w_.op("arith.extui " + p.name + " : " + p.type + " to " + tensorType(shape, "i32"),
            shape, "i32");
  const std::string any = w_.freshName();
  const std::string a = w_.freshName(), b = w_.freshName(), m = w_.freshName();
  w_.open(any + " = \"tt.reduce\"(" + wide.name + ") <{axis = 0 : i32}> ({");
  w_.line("^bb0(" + a + ": i32, " + b + ": i32):");
  w_.line(m + " = arith.maxui " + a + ", " + b + " : i32");
  w_.line("tt.reduce.return " + m + " : i32");
  w_.close("}) : (" + wide.type + ") -> i32");
  const Value zero32 = w_.op("arith.constant 0 : i32", {}, "i32");
  const Value go =
      w_.op("arith.cmpi ne, " + any + ", " + zero32.name + " : i32", {}, "i1");
  w_.line("scf.condition(" + go.name + ") " + pending + ", " + seen + " : " + mask.type +
          ", " + itype);
  w_.close("} do {");
  const std::string q = w_.freshName(), old = w_.freshName();
  w_.open("^bb0(" + q + ": " + mask.type + ", " + old + ": " + itype + "):");
  const Value qv{q, mask.type, shape, "i1"};
  const Value oldv{old, itype, shape, it};
  const Value current =
      narrow ? wordElement(oldv, *shift, element_bits, value)
      : t != it
          ? w_.op("tt.bitcast " + old + " : " + itype + " -> " + value.type, shape, t)
          : oldv;
  JFT_ASSIGN_OR_RETURN(std::vector<Value> combined,
                       emitScalarRegion(w_, module_, op_->regions[0], {current, value}));
  if (combined.size() != 1) return internalError("scatter region with several results");
  Value next = combined[0];
  if (narrow)
    next = withWordElement(oldv, *shift, element_bits, next);
  else if (t != it)
    next =
        w_.op("tt.bitcast " + next.name + " : " + next.type + " -> " + itype, shape, it);
  // Lanes done (or never pending) swap what they last saw for itself.
  const Value swap = w_.op("arith.select " + q + ", " + next.name + ", " + old + " : " +
                               mask.type + ", " + itype,
                           shape, it);
  const Value& expect = oldv;
  const Value got =
      w_.op("tt.atomic_cas acq_rel, gpu, " + address.name + ", " + expect.name + ", " +
                swap.name + " : (" + iptr + ", " + itype + ", " + itype + ") -> " + itype,
            shape, it);
  const Value lost = w_.op(
      "arith.cmpi ne, " + got.name + ", " + expect.name + " : " + itype, shape, "i1");
  const Value again = ix_.both(qv, lost);
  w_.line("scf.yield " + again.name + ", " + got.name + " : " + mask.type + ", " + itype);
  w_.close("}");
  return Status::ok();
}

// The `bits`-wide element at `shift` of a 32-bit word, as a value of
// `like`'s type (pred: nonzero byte is true).
Value ScatterKernel::wordElement(const Value& word, const Value& shift, int bits,
                                 const Value& like) {
  const std::vector<int64_t>& shape = word.shape;
  const std::string narrow_int = "i" + std::to_string(bits);
  const Value moved = w_.op(
      "arith.shrui " + word.name + ", " + shift.name + " : " + word.type, shape, "i32");
  const Value low = w_.op("arith.trunci " + moved.name + " : " + word.type + " to " +
                              tensorType(shape, narrow_int),
                          shape, narrow_int);
  if (like.scalar == narrow_int) return low;
  if (like.scalar == "i1") {
    const Value zero = w_.op("arith.constant dense<0> : " + low.type, shape, narrow_int);
    return w_.op("arith.cmpi ne, " + low.name + ", " + zero.name + " : " + low.type,
                 shape, "i1");
  }
  return w_.op("tt.bitcast " + low.name + " : " + low.type + " -> " + like.type, shape,
               like.scalar);
}

// `word` with its `bits`-wide element at `shift` replaced by `element`.
Value ScatterKernel::withWordElement(const Value& word, const Value& shift, int bits,
                                     const Value& element) {
  const std::vector<int64_t>& shape = word.shape;
  const std::string narrow_int = "i" + std::to_string(bits);
  const std::string narrow_type = tensorType(shape, narrow_int);
  Value raw = element;
  if (element.scalar == "i1")
    raw =
        w_.op("arith.extui " + element.name + " : " + element.type + " to " + narrow_type,
              shape, narrow_int);
  else if (element.scalar != narrow_int)
    raw =
        w_.op("tt.bitcast " + element.name + " : " + element.type + " -> " + narrow_type,
              shape, narrow_int);
  const Value wide = w_.op(
      "arith.extui " + raw.name + " : " + narrow_type + " to " + word.type, shape, "i32");
  const Value placed = w_.op(
      "arith.shli " + wide.name + ", " + shift.name + " : " + word.type, shape, "i32");
  const int64_t ones = (int64_t{1} << bits) - 1;
  const Value field =
      w_.op("arith.shli " +
                w_.op("arith.constant dense<" + std::to_string(ones) + "> : " + word.type,
                      shape, "i32")
                    .name +
                ", " + shift.name + " : " + word.type,
            shape, "i32");
  const Value all = w_.op("arith.constant dense<-1> : " + word.type, shape, "i32");
  const Value keep = w_.op(
      "arith.xori " + field.name + ", " + all.name + " : " + word.type, shape, "i32");
  const Value rest = w_.op(
      "arith.andi " + word.name + ", " + keep.name + " : " + word.type, shape, "i32");
  return w_.op("arith.ori " + rest.name + ", " + placed.name + " : " + word.type, shape,
               "i32");
}

Status ScatterKernel::applyUpdates(int64_t count) {
  const std::vector<int64_t>& udims = module_.typeOf(op_->operands[2]).dims;
  const Value lane = programLanes();
  IndexSpace s;
  s.dims = udims;
  s.linear = lane;
  if (udims.size() == 1) s.comps = {lane};
  if (count % kChunk != 0) s.bounds.push_back(ix_.compareConst("slt", lane, count));
  const int space = udims.empty() ? el_.scalarSpace() : ix_.intern(std::move(s));
  JFT_ASSIGN_OR_RETURN(auto where, target(space));
  Value mask = udims.empty() ? ix_.compareConst("slt", lane, 1)
                             : ix_.compareConst("slt", lane, count);
  if (where.second) mask = ix_.both(mask, ix_.broadcast(*where.second, {kChunk}));
  const std::string mem = memoryType(part_element_);
  const std::string ptr = "!tt.ptr<" + mem + ">";
  const Value offset = ix_.broadcast(where.first, {kChunk});
  const Value base = w_.op("tt.splat " + signature_.outputs[0] + " : " + ptr + " -> " +
                               tensorType({kChunk}, ptr),
                           {kChunk}, ptr);
  // A complex element is the pair (re, im) at 2i, 2i + 1: each part is set,
  // or atomically added to, on its own (complex addition is per part).
  for (int part = 0; part < parts_; ++part) {
    JFT_ASSIGN_OR_RETURN(Value v, el_.emitPart(op_->operands[2], space, part));
    v = ix_.broadcast(v, {kChunk});
    if (cas_) return casCombine(base, offset, v, mask);
    const Value at = parts_ == 1 ? offset : ix_.addConst(ix_.mulConst(offset, 2), part);
    const Value address = w_.op(
        "tt.addptr " + base.name + ", " + at.name + " : " + base.type + ", " + at.type,
        {kChunk}, ptr);
    JFT_RETURN_IF_ERROR(combine(address, v, mask));
  }
  return Status::ok();
}

// The updates' dims split into the scatter's rows (dims not in
// update_window_dims) and the window; StableHLO applies rows in row-major
// order. Within a row the window offsets reach distinct elements, so their
// order never matters; across rows it does when two rows reach one element.
// kByWindow: program p owns window offsets [p * kChunk, (p + 1) * kChunk)
// and walks the rows in order with plain loads and stores. A lane keeps its
// offset through the loop, and no other lane or program reaches its
// elements (scatterWindowsDisjoint), so no atomics; a barrier closes each
// step so that the next one reads what it stored, whichever thread holds
// the lane. kOneByOne (windows of different rows may overlap at different
// offsets): one program of one lane walks every (row, offset) in order.
StatusOr<Launch> ScatterKernel::applyInOrder() {
  const std::vector<int64_t>& udims = module_.typeOf(op_->operands[2]).dims;
  int64_t rows = 1, window = 1;
  for (size_t d = 0; d < udims.size(); ++d)
    (contains(dn_->update_window_dims, static_cast<int64_t>(d)) ? window : rows) *=
        udims[d];
  Launch launch;
  launch.tile = std::to_string(lanes_) + " updates in order";
  const bool by_window = order_ == UpdateOrder::kByWindow;
  const int64_t steps = by_window ? rows : rows * window;
  launch.grid = {rows * window == 0 ? 0u : by_window ? programsFor(window) : 1u, 1, 1};
  if (!by_window) launch.num_warps = 1;
  const Value offsets = by_window ? programLanes() : ix_.indexConstant(0, {lanes_});
  const std::string& it = ix_.indexType();
  const Value lower = ix_.scalarConstant(0), upper = ix_.scalarConstant(steps),
              step = ix_.scalarConstant(1);
  const std::string k = w_.freshName();
  w_.open("scf.for " + k + " = " + lower.name + " to " + upper.name + " step " +
          step.name + " : " + it + " {");
  const Elemental::State saved = el_.save();
  const Value kv{k, it, {}, it};
  if (by_window) {
    JFT_RETURN_IF_ERROR(applyRow(kv, offsets));
  } else {
    const Value row = ix_.scalarBinary("arith.divsi", kv, ix_.scalarConstant(window));
    const Value at = ix_.scalarBinary("arith.remsi", kv, ix_.scalarConstant(window));
    JFT_RETURN_IF_ERROR(applyRow(row, ix_.splat(at, {lanes_})));
  }
  // The next step's loads see this step's stores whichever threads Triton
  // gives the load and the store of one lane (and whichever thread of a
  // replicated single lane stores).
  w_.line("gpu.barrier");
  w_.close("}");
  el_.restore(saved);
  return launch;
}

Status ScatterKernel::applyRow(const Value& row, const Value& offsets) {
  const std::vector<int64_t>& udims = module_.typeOf(op_->operands[2]).dims;
  std::vector<int64_t> row_sizes, window_sizes;
  for (size_t d = 0; d < udims.size(); ++d)
    (contains(dn_->update_window_dims, static_cast<int64_t>(d)) ? window_sizes
                                                                : row_sizes)
        .push_back(udims[d]);
  const int64_t window = product(window_sizes);
  // Row-major components of the row and of the window offset.
  const Value rows = ix_.splat(row, {lanes_});
  const std::vector<int64_t> row_strides = rowMajorStrides(row_sizes);
  const std::vector<int64_t> window_strides = rowMajorStrides(window_sizes);
  IndexSpace s;
  s.dims = udims;
  size_t r = 0, wd = 0;
  for (size_t d = 0; d < udims.size(); ++d) {
    const bool is_window = contains(dn_->update_window_dims, static_cast<int64_t>(d));
    const Value& linear = is_window ? offsets : rows;
    const int64_t stride = is_window ? window_strides[wd++] : row_strides[r++];
    // The first non-unit dim of each set needs no remainder, but one is cheap.
    s.comps.emplace_back(ix_.remConst(ix_.divConst(linear, stride), udims[d]));
  }
  const Value in_window = ix_.compareConst("slt", offsets, window);
  if (window % lanes_ != 0) s.bounds.push_back(in_window);
  const int space = udims.empty() ? el_.scalarSpace() : ix_.intern(std::move(s));
  JFT_ASSIGN_OR_RETURN(auto where, target(space));
  Value mask = in_window;
  if (where.second) mask = ix_.both(mask, ix_.broadcast(*where.second, {lanes_}));
  const std::string mem = memoryType(part_element_);
  const std::string ptr = "!tt.ptr<" + mem + ">";
  const Value offset = ix_.broadcast(where.first, {lanes_});
  const Value base = w_.op("tt.splat " + signature_.outputs[0] + " : " + ptr + " -> " +
                               tensorType({lanes_}, ptr),
                           {lanes_}, ptr);
  for (int part = 0; part < parts_; ++part) {
    JFT_ASSIGN_OR_RETURN(Value v, el_.emitPart(op_->operands[2], space, part));
    v = ix_.broadcast(v, {lanes_});
    const Value at = parts_ == 1 ? offset : ix_.addConst(ix_.mulConst(offset, 2), part);
    const Value address = w_.op(
        "tt.addptr " + base.name + ", " + at.name + " : " + base.type + ", " + at.type,
        {lanes_}, ptr);
    Value next = v;
    if (combine_ != fusion::ScatterCombine::kReplace) {
      const Value loaded =
          w_.op("tt.load " + address.name + ", " + mask.name + " : " + address.type,
                {lanes_}, mem);
      const Value current = loadedToRegister(w_, part_element_, loaded);
      if (parts_ == 2) {
        // Complex add, part by part.
        next = w_.op("arith.addf " + current.name + ", " + v.name + " : " + current.type,
                     {lanes_}, current.scalar);
      } else {
        JFT_ASSIGN_OR_RETURN(
            std::vector<Value> combined,
            emitScalarRegion(w_, module_, op_->regions[0], {current, v}));
        if (combined.size() != 1)
          return internalError("scatter region with several results");
        next = combined[0];
      }
    }
    const Value stored = registerToStored(w_, part_element_, next);
    w_.line("tt.store " + address.name + ", " + stored.name + ", " + mask.name + " : " +
            address.type);
  }
  return Status::ok();
}

Status ScatterKernel::check() {
  if (fusion_.ops.empty())
    return unimplemented(fusion_.name + ": an empty scatter group");
  op_ = &function_.body.ops.at(fusion_.ops.back());
  if (op_->kind != ir::OpKind::Scatter)
    return unimplemented(fusion_.name + ": the scatter group's root is not a scatter");
  if (const std::string why = fusion::scatterUnsupported(module_, *op_); !why.empty())
    return unimplemented("stablehlo.scatter: " + why);
  dn_ = ir::findAttrAs<ir::ScatterDimensionNumbers>(op_->attrs,
                                                    "scatter_dimension_numbers");
  if (!dn_) return unimplemented("stablehlo.scatter without dimension numbers");
  if (fusion_.outputs.size() != 1 || fusion_.outputs[0] != op_->results[0])
    return unimplemented(fusion_.name + ": a scatter kernel stores only the scatter");
  element_ = module_.typeOf(op_->results[0]).element;
  parts_ = ir::isComplex(element_) ? 2 : 1;
  part_element_ = parts_ == 2 ? ir::complexComponent(element_) : element_;
  combine_ = fusion::scatterCombineOf(*op_);
  cas_ = fusion::scatterUsesCas(module_, *op_);
  return Status::ok();
}

uint32_t programsFor(int64_t count) {
  return static_cast<uint32_t>(std::max<int64_t>(1, (count + kChunk - 1) / kChunk));
}

StatusOr<Launch> ScatterKernel::emitCopy() {
  JFT_RETURN_IF_ERROR(copyOperand());
  Launch launch;
  launch.grid = {programsFor(product(module_.typeOf(op_->operands[0]).dims)), 1, 1};
  launch.tile = std::to_string(kChunk) + " copy";
  return launch;
}

StatusOr<Launch> ScatterKernel::emitUpdates() {
  if (order_ != UpdateOrder::kAtomic) return applyInOrder();
  const int64_t count = product(module_.typeOf(op_->operands[2]).dims);
  JFT_RETURN_IF_ERROR(applyUpdates(count));
  Launch launch;
  launch.grid = {count == 0 ? 0u : programsFor(count), 1, 1};
  launch.tile = std::to_string(kChunk) + " updates";
  return launch;
}

}  // namespace

StatusOr<StagedKernels> emitScatterKernels(const GroupInputs& group, bool deterministic) {
  const UpdateOrder order =
      updateOrderOf(group.module, group.function, group.fusion, deterministic);
  StagedKernels staged;
  for (int stage = 0; stage < 2; ++stage) {
    JFT_ASSIGN_OR_RETURN(StageWriter part,
                         StageWriter::open(group, stage == 0 ? "" : "_updates"));
    ScatterKernel kernel(part.inputs(), stage == 0 ? UpdateOrder::kAtomic : order);
    JFT_RETURN_IF_ERROR(kernel.check());
    JFT_ASSIGN_OR_RETURN(Launch launch,
                         stage == 0 ? kernel.emitCopy() : kernel.emitUpdates());
    staged.stages.push_back(part.finish(std::move(launch)));
  }
  return staged;
}

}  // namespace jft::codegen::ttir
