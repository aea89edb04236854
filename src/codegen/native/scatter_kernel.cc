// The scatter family: one stablehlo.scatter of one operand, as two entry
// points launched in order (native_kernel.h).
//
// The result starts as a copy of the operand and no update may be combined
// into an element before its copy is written; blocks of one grid are not
// ordered, so the copy is the first kernel (the loop family's body for the
// operand, so a fused producer such as an embedding gradient's zeros is
// never read from memory). "<name>_updates" then applies the updates. An
// update whose whole window does not lie inside the operand is dropped, as
// XLA does (and JAX's default scatter mode expects).
//
// How colliding updates meet (fusion/scatter_form.h names the combiners):
//   - add, max, min, multiply: atomics, one update per thread, in any order
//     (StableHLO leaves it unspecified; XLA GPU and the TTIR route do the
//     same): the hardware's add for 32/64-bit integers, f32 and f64, else
//     a compare-and-swap loop applying the region, on the element's own
//     32/64-bit word or on the aligned 32-bit word holding an 8/16-bit one;
//     complex add part by part (complex max/min/multiply are refused);
//   - replace and any other region: in StableHLO's order, unless
//     unique_indices says no two updates meet (then one per thread, plain
//     stores). Threads own window offsets and walk the updates' rows in
//     order; when the windows of different rows may overlap at different
//     offsets (fusion::scatterWindowsDisjoint false) one block does it, with
//     a barrier after each row.
#include <algorithm>

#include "codegen/native/c_types.h"
#include "codegen/native/elemental.h"
#include "codegen/native/family_kernels.h"
#include "fusion/scatter_form.h"
#include "support/int_lists.h"

namespace jft::codegen::native {
namespace {

constexpr int64_t kScatterThreads = 256;

enum class ScatterApply {
  kStore,      // plain store (replace)
  kUpdate,     // plain load, region, store
  kAtomicAdd,  // the hardware's add
  kComplexAdd,
  kSwap,  // compare-and-swap loop on the element's word
};

bool listsDim(const std::vector<int64_t>& list, size_t d) {
  return contains(list, static_cast<int64_t>(d));
}

bool allIn(const std::vector<int64_t>& list, size_t rank) {
  return std::all_of(list.begin(), list.end(),
                     [&](int64_t d) { return d >= 0 && static_cast<size_t>(d) < rank; });
}

// The unsigned word type of a stored element; "" when it has none.
std::string wordOf(ir::ElementType element) {
  if (element == ir::ElementType::PRED) return "jft_u8";
  if (ir::isComplex(element)) return "";
  const int bits = ir::bitWidth(element);
  return bits == 8 || bits == 16 || bits == 32 || bits == 64 ? unsignedTwin(element) : "";
}

// A stored element's bits as its word, and back.
std::string storedBits(ir::ElementType element, const std::string& stored) {
  if (element == ir::ElementType::F32) return "jft_f32_bits(" + stored + ")";
  if (element == ir::ElementType::F64) return "jft_f64_bits(" + stored + ")";
  return "(" + wordOf(element) + ")(" + stored + ")";
}
std::string storedFromBits(ir::ElementType element, const std::string& bits) {
  if (element == ir::ElementType::F32) return "jft_f32_from_bits(" + bits + ")";
  if (element == ir::ElementType::F64) return "jft_f64_from_bits(" + bits + ")";
  return "(" + storageType(element) + ")(" + bits + ")";
}

class ScatterWriter {
 public:
  ScatterWriter(const KernelContext& c, const ir::Op& op,
                const ir::ScatterDimensionNumbers& dn)
      : c_(c), op_(op), dn_(dn) {
    operand_ = c.module.typeOf(op.operands[0]).dims;
    indices_ = c.module.typeOf(op.operands[1]).dims;
    updates_ = c.module.typeOf(op.operands[2]).dims;
    element_ = c.module.typeOf(op.results[0]).element;
    for (size_t d = 0; d < updates_.size(); ++d)
      (listsDim(dn.update_window_dims, d) ? window_dims_ : row_dims_).push_back(d);
  }

  // INVALID_ARGUMENT for dimension numbers that do not fit the shapes.
  Status check() const {
    const size_t ivd = static_cast<size_t>(std::max<int64_t>(dn_.index_vector_dim, 0));
    const size_t index_rank = indices_.size();
    const bool ok =
        dn_.index_vector_dim >= 0 && ivd <= index_rank &&
        allIn(dn_.update_window_dims, updates_.size()) &&
        allIn(dn_.inserted_window_dims, operand_.size()) &&
        allIn(dn_.input_batching_dims, operand_.size()) &&
        allIn(dn_.scatter_dims_to_operand_dims, operand_.size()) &&
        allIn(dn_.scatter_indices_batching_dims, index_rank) &&
        dn_.input_batching_dims.size() == dn_.scatter_indices_batching_dims.size() &&
        !listsDim(dn_.scatter_indices_batching_dims, ivd) &&
        row_dims_.size() == index_rank - (ivd < index_rank ? 1 : 0) &&
        window_dims_.size() + dn_.inserted_window_dims.size() +
                dn_.input_batching_dims.size() ==
            operand_.size() &&
        (ivd == index_rank
             ? dn_.scatter_dims_to_operand_dims.size() == 1
             : indices_[ivd] ==
                   static_cast<int64_t>(dn_.scatter_dims_to_operand_dims.size()));
    if (!ok)
      return invalidArgument(
          opName(op_) +
          ": scatter_dimension_numbers do not fit the operand, indices "
          "and updates shapes");
    return Status::ok();
  }

  StatusOr<ScatterApply> chooseApply() {
    const fusion::ScatterCombine combine = fusion::scatterCombineOf(op_);
    const auto* unique = ir::findAttrAs<bool>(op_.attrs, "unique_indices");
    const bool is_unique = unique != nullptr && *unique;
    using C = fusion::ScatterCombine;
    if (combine == C::kReplace) {
      ordered_ = !is_unique;
      return ScatterApply::kStore;
    }
    if (combine == C::kOther) {  // plain loads and stores: complex values too
      ordered_ = !is_unique;
      return ScatterApply::kUpdate;
    }
    if (ir::isComplex(element_)) {
      if (combine == C::kAdd) return ScatterApply::kComplexAdd;
      return unimplemented(opName(op_) +
                           " of complex values combined by an atomic other than add");
    }
    using E = ir::ElementType;
    const E t = element_;
    if (combine == C::kAdd && (t == E::F32 || t == E::F64 || t == E::I32 || t == E::U32 ||
                               t == E::I64 || t == E::U64))
      return ScatterApply::kAtomicAdd;
    if (wordOf(t).empty())
      return unimplemented(opName(op_) + " of " + std::string(ir::elementTypeName(t)) +
                           ": no atomic word");
    return ScatterApply::kSwap;
  }

  bool ordered() const { return ordered_; }
  int64_t rows() const { return product(updates_, toInts(row_dims_)); }
  int64_t window() const { return product(updates_, toInts(window_dims_)); }

  // Every update, one per thread, in any order.
  Status emitUnordered(CudaWriter& w, Elemental& e, ScatterApply apply) {
    openGridStrideLoop(w, product(updates_));
    const Index u =
        e.delinearize(updates_, w.let(c_.index_type, "(" + c_.index_type + ")jft_i"));
    JFT_RETURN_IF_ERROR(emitUpdate(w, e, u, apply));
    w.close();
    return Status::ok();
  }

  // Rows in order per window offset; `barrier`: one block, a barrier per row.
  Status emitOrdered(CudaWriter& w, Elemental& e, ScatterApply apply, bool barrier,
                     int64_t threads) {
    if (barrier) {
      w.open("for (jft_i64 jft_r = 0; jft_r < " + num(rows()) + "ll; ++jft_r) {");
      w.open("for (jft_i64 jft_i = threadIdx.x; jft_i < " + num(window()) +
             "ll; jft_i += " + num(threads) + ") {");
    } else {
      openGridStrideLoop(w, window());
      w.open("for (jft_i64 jft_r = 0; jft_r < " + num(rows()) + "ll; ++jft_r) {");
    }
    Elemental::Memo memo = e.save();
    const Index rows_at = e.delinearize(
        sizesAt(row_dims_), w.let(c_.index_type, "(" + c_.index_type + ")jft_r"));
    const Index window_at = e.delinearize(
        sizesAt(window_dims_), w.let(c_.index_type, "(" + c_.index_type + ")jft_i"));
    Index u;
    u.dims = updates_;
    for (size_t d = 0, r = 0, k = 0; d < updates_.size(); ++d)
      u.comps.push_back(listsDim(dn_.update_window_dims, d) ? window_at.comps[k++]
                                                            : rows_at.comps[r++]);
    JFT_RETURN_IF_ERROR(emitUpdate(w, e, u, apply));
    e.restore(std::move(memo));
    w.close();
    if (barrier) w.line("__syncthreads();");
    w.close();
    return Status::ok();
  }

 private:
  static std::vector<int64_t> toInts(const std::vector<size_t>& dims) {
    return std::vector<int64_t>(dims.begin(), dims.end());
  }
  std::vector<int64_t> sizesAt(const std::vector<size_t>& dims) const {
    std::vector<int64_t> sizes;
    for (size_t d : dims) sizes.push_back(updates_[d]);
    return sizes;
  }

  // The update at `u`: its target, the bounds check, the combine.
  Status emitUpdate(CudaWriter& w, Elemental& e, const Index& u, ScatterApply apply) {
    Elemental::Memo memo = e.save();
    std::vector<std::string> comps(operand_.size()), batch;
    std::vector<int64_t> window(operand_.size(), 1);
    for (size_t d : row_dims_) batch.push_back(u.comps[d]);
    for (size_t d = 0, next = 0; d < operand_.size(); ++d) {
      if (listsDim(dn_.inserted_window_dims, d) || listsDim(dn_.input_batching_dims, d))
        continue;
      const size_t ud = static_cast<size_t>(dn_.update_window_dims[next++]);
      window[d] = updates_[ud];
      comps[d] = u.comps[ud];
    }
    const size_t ivd = static_cast<size_t>(dn_.index_vector_dim);
    // Index dims but the index vector's are the update's row dims, in order.
    auto rowOfIndexDim = [&](size_t j) { return j < ivd ? j : j - 1; };
    for (size_t i = 0; i < dn_.input_batching_dims.size(); ++i)
      comps[static_cast<size_t>(dn_.input_batching_dims[i])] =
          batch[rowOfIndexDim(static_cast<size_t>(dn_.scatter_indices_batching_dims[i]))];
    const ir::ElementType index_element = c_.module.typeOf(op_.operands[1]).element;
    std::string inside;
    for (size_t k = 0; k < dn_.scatter_dims_to_operand_dims.size(); ++k) {
      Index at;
      at.dims = indices_;
      for (size_t j = 0; j < indices_.size(); ++j)
        at.comps.push_back(j == ivd ? num(static_cast<int64_t>(k))
                                    : batch[rowOfIndexDim(j)]);
      JFT_ASSIGN_OR_RETURN(std::string start, e.emit(op_.operands[1], at));
      const auto d = static_cast<size_t>(dn_.scatter_dims_to_operand_dims[k]);
      const int64_t hi = operand_[d] - window[d];
      // In range in the index's own signedness, before any narrowing.
      const std::string ok = ir::isUnsignedInteger(index_element)
                                 ? "(jft_u64)" + start + " <= " + num(hi) + "ull"
                                 : "(jft_i64)" + start + " >= 0 && (jft_i64)" + start +
                                       " <= " + num(hi) + "ll";
      inside += (inside.empty() ? "" : " && ") + ok;
      const std::string s = w.let(c_.index_type, "(" + c_.index_type + ")" + start);
      comps[d] = comps[d].empty() ? s : w.let(c_.index_type, comps[d] + " + " + s);
    }
    Index target;
    target.dims = operand_;
    for (std::string& comp : comps) target.comps.push_back(comp.empty() ? "0" : comp);
    w.open("if (" + (inside.empty() ? std::string("true") : inside) + ") {");
    const std::string at = e.linearOf(target);
    JFT_ASSIGN_OR_RETURN(std::string value, e.emit(op_.operands[2], u));
    JFT_RETURN_IF_ERROR(combine(w, e, at, value, apply));
    w.close();
    e.restore(std::move(memo));
    return Status::ok();
  }

  StatusOr<std::string> region(Elemental& e, const std::string& current,
                               const std::string& update) {
    JFT_ASSIGN_OR_RETURN(std::vector<std::string> r,
                         e.emitRegion(op_.regions.at(0), {current, update}));
    if (r.size() != 1)
      return unimplemented(opName(op_) + ": an update computation of several results");
    return r[0];
  }

  Status combine(CudaWriter& w, Elemental& e, const std::string& at,
                 const std::string& value, ScatterApply apply) {
    const std::string out = c_.output_params[0];
    const std::string element = out + "[" + at + "]";
    switch (apply) {
      case ScatterApply::kStore:
        w.line(element + " = " + toStorage(element_, value) + ";");
        return Status::ok();
      case ScatterApply::kUpdate: {
        JFT_ASSIGN_OR_RETURN(std::string r,
                             region(e, fromStorage(element_, element), value));
        w.line(element + " = " + toStorage(element_, r) + ";");
        return Status::ok();
      }
      case ScatterApply::kAtomicAdd:
        if (ir::isFloat(element_)) {
          w.line("jft_atomic_add(&" + element + ", " + value + ");");
        } else {
          const std::string word = wordOf(element_);
          w.line("jft_atomic_add((" + word + "*)&" + element + ", (" + word + ")" +
                 value + ");");
        }
        return Status::ok();
      case ScatterApply::kComplexAdd: {
        const std::string part = computeType(element_);
        const std::string p = w.let(part + "*", "(" + part + "*)&" + element);
        w.line("jft_atomic_add(" + p + ", " + value + ".re);");
        w.line("jft_atomic_add(" + p + " + 1, " + value + ".im);");
        return Status::ok();
      }
      case ScatterApply::kSwap:
        return swapLoop(w, e, element, value);
    }
    return Status::ok();
  }

  // A compare-and-swap loop: the region applied to what the word holds,
  // until no other thread changed it in between.
  Status swapLoop(CudaWriter& w, Elemental& e, const std::string& element,
                  const std::string& value) {
    const int bits = element_ == ir::ElementType::PRED ? 8 : ir::bitWidth(element_);
    const bool narrow = bits < 32;
    const std::string word = narrow ? "jft_u32" : wordOf(element_);
    const std::string p = w.fresh(), shift = w.fresh(), old = w.fresh(), seen = w.fresh();
    if (narrow) {
      // The aligned 32-bit word holding the element, and where it sits.
      w.line("jft_u32* " + p + " = (jft_u32*)((jft_u64)&" + element + " & ~(jft_u64)3);");
      w.line("const jft_u32 " + shift + " = (jft_u32)(((jft_u64)&" + element +
             " & 3) * 8);");
    } else {
      w.line(word + "* " + p + " = (" + word + "*)&" + element + ";");
    }
    w.line(word + " " + old + " = jft_atomic_load(" + p + "), " + seen + ";");
    w.open("do {");
    Elemental::Memo memo = e.save();
    w.line(seen + " = " + old + ";");
    const std::string mask = num((int64_t{1} << bits) - 1) + "u";
    const std::string bits_now = narrow ? "(" + wordOf(element_) + ")((" + seen + " >> " +
                                              shift + ") & " + mask + ")"
                                        : seen;
    const std::string current =
        w.let(registerType(element_),
              fromStorage(element_, storedFromBits(element_, bits_now)));
    JFT_ASSIGN_OR_RETURN(std::string r, region(e, current, value));
    std::string next = storedBits(element_, toStorage(element_, r));
    if (narrow)
      next = "(" + seen + " & ~(" + mask + " << " + shift + ")) | (((jft_u32)" + next +
             " & " + mask + ") << " + shift + ")";
    w.line(old + " = jft_cas(" + p + ", " + seen + ", " + next + ");");
    e.restore(std::move(memo));
    w.close("} while (" + old + " != " + seen + ");");
    return Status::ok();
  }

  const KernelContext& c_;
  const ir::Op& op_;
  const ir::ScatterDimensionNumbers& dn_;
  std::vector<int64_t> operand_, indices_, updates_;
  std::vector<size_t> row_dims_, window_dims_;  // of the updates
  ir::ElementType element_ = ir::ElementType::F32;
  bool ordered_ = false;
};

}  // namespace

StatusOr<FamilyKernel> emitScatterBody(const KernelContext& c) {
  const fusion::Fusion& fusion = c.fusion;
  JFT_ASSIGN_OR_RETURN(const ir::Op* scatter,
                       groupOpOf(c, ir::OpKind::Scatter, "scatter"));
  const ir::Op& op = *scatter;
  if (op.operands.size() != 3 || op.results.size() != 1 || op.regions.size() != 1)
    return unimplemented(opName(op) + " of several inputs (one operand is run)");
  if (fusion.outputs.size() != 1 || fusion.outputs[0] != op.results[0])
    return unimplemented(opName(op) +
                         ": a scatter kernel stores only the scatter's result");
  if (!ir::isInteger(c.module.typeOf(op.operands[1]).element))
    return unimplemented(opName(op) + " with non-integer indices");
  for (ir::ValueId v : {op.operands[0], op.operands[2]}) {
    std::string why;
    if (!isNativeType(c.module.typeOf(v).element, &why))
      return unimplemented(opName(op) + " of " + why);
  }
  const auto* dn =
      ir::findAttrAs<ir::ScatterDimensionNumbers>(op.attrs, "scatter_dimension_numbers");
  if (dn == nullptr)
    return invalidArgument(opName(op) + " without scatter_dimension_numbers");
  ScatterWriter writer(c, op, *dn);
  JFT_RETURN_IF_ERROR(writer.check());
  JFT_ASSIGN_OR_RETURN(ScatterApply apply, writer.chooseApply());

  JFT_ASSIGN_OR_RETURN(FamilyKernel kernel, emitElementLoop(c, {op.operands[0]}));
  FamilyKernel updates;
  updates.suffix = "_updates";
  CudaWriter w;
  Elemental elemental(w, c.module, c.function, fusion, c.input_params, c.index_type);
  int64_t threads = kScatterThreads;
  if (!writer.ordered()) {
    JFT_RETURN_IF_ERROR(writer.emitUnordered(w, elemental, apply));
    updates.grid = blocksFor(c, writer.rows() * writer.window(), threads);
  } else if (fusion::scatterWindowsDisjoint(c.module, op)) {
    JFT_RETURN_IF_ERROR(writer.emitOrdered(w, elemental, apply, false, threads));
    updates.grid = blocksFor(c, writer.window(), threads);
  } else {
    threads = blockThreads(c, writer.window(), kScatterThreads);
    JFT_RETURN_IF_ERROR(writer.emitOrdered(w, elemental, apply, true, threads));
    updates.grid = 1;
  }
  if (writer.rows() * writer.window() == 0) updates.grid = 0;
  updates.body = w.text();
  updates.num_warps = static_cast<int>(threads / c.options.warp_size);
  kernel.later.push_back(std::move(updates));
  return kernel;
}

}  // namespace jft::codegen::native
