// The sort family: one stablehlo.sort (any number of operands, one
// comparator region) along one dim, one block per row.
//
// The row is loaded into shared memory, N = nextPow2(n) slots per operand
// plus one of original positions, and sorted by a bitonic network whose
// compare-and-swap moves every operand by the same decision. Order: the
// comparator (its region as C), then the original position, which makes
// the order total and the sort stable whether or not is_stable asks for it
// (as the TTIR route and XLA's stable sort); slots past the row order after
// every element, so the first n slots are the sorted row. Values only ever
// move, so NaNs, -0.0 and integers survive exactly. Rows whose slots do not
// fit a block's static shared memory are refused.
#include <algorithm>

#include "codegen/native/c_types.h"
#include "codegen/native/elemental.h"
#include "codegen/native/family_kernels.h"
#include "support/int_lists.h"

namespace jft::codegen::native {
namespace {

constexpr int64_t kMaxSortThreads = 512;
// What a block may declare statically on every CUDA GPU.
constexpr int64_t kSortSharedBytes = 48 * 1024;

// Bytes of one element in a register (what the shared slots hold).
int64_t registerBytes(ir::ElementType element) {
  if (ir::isComplex(element)) return 2 * registerBytes(ir::complexComponent(element));
  if (element == ir::ElementType::PRED) return 1;
  if (ir::isFloat(element)) return element == ir::ElementType::F64 ? 8 : 4;
  return ir::storageBytes(element);
}

class SortWriter {
 public:
  SortWriter(const KernelContext& c, CudaWriter& w, Elemental& e, const ir::Op& op,
             size_t dim, int64_t slots, int64_t threads)
      : c_(c), w_(w), e_(e), op_(op), dim_(dim), slots_(slots), threads_(threads) {
    full_ = c.module.typeOf(op.operands.at(0)).dims;
    n_ = full_.at(dim);
    kept_ = full_;
    kept_.erase(kept_.begin() + static_cast<std::ptrdiff_t>(dim));
  }

  int64_t rows() const { return product(kept_); }

  Status emit() {
    for (size_t j = 0; j < op_.operands.size(); ++j) {
      const ir::ElementType element = c_.module.typeOf(op_.operands[j]).element;
      types_.push_back(registerType(element));
      slot_names_.push_back("jft_sort" + num(static_cast<int64_t>(j)));
      shared_ +=
          "  __shared__ " + types_[j] + " " + slot_names_[j] + "[" + num(slots_) + "];\n";
    }
    shared_ += "  __shared__ jft_i32 jft_sort_pos[" + num(slots_) + "];\n";
    JFT_ASSIGN_OR_RETURN(std::vector<size_t> stored, storedResults());
    openBlockRowLoop(w_, rows());
    const std::string row = w_.let(c_.index_type, "(" + c_.index_type + ")jft_row");
    row_ = e_.delinearize(kept_, row);
    JFT_RETURN_IF_ERROR(load());
    w_.line("__syncthreads();");
    JFT_RETURN_IF_ERROR(network());
    // The sorted row, from the first n slots.
    w_.open("for (jft_i64 jft_k = threadIdx.x; jft_k < " + num(n_) +
            "ll; jft_k += " + num(threads_) + ") {");
    Elemental::Memo memo = e_.save();
    const std::string at = e_.linearOf(position("jft_k"));
    for (size_t o = 0; o < stored.size(); ++o) {
      const size_t r = stored[o];
      const ir::ElementType element = c_.module.typeOf(op_.results[r]).element;
      w_.line(c_.output_params[o] + "[" + at +
              "] = " + toStorage(element, slot_names_[r] + "[jft_k]") + ";");
    }
    e_.restore(std::move(memo));
    w_.close();
    // The next row's loads wait until this row is stored.
    w_.line("__syncthreads();");
    w_.close();
    return Status::ok();
  }

  const std::string& shared() const { return shared_; }

 private:
  // The result of the sort each fusion output is.
  StatusOr<std::vector<size_t>> storedResults() {
    std::vector<size_t> stored;
    for (ir::ValueId out : c_.fusion.outputs) {
      const auto it = std::find(op_.results.begin(), op_.results.end(), out);
      if (it == op_.results.end())
        return unimplemented(opName(op_) +
                             ": a sort kernel stores only the sort's results");
      stored.push_back(static_cast<size_t>(it - op_.results.begin()));
    }
    return stored;
  }

  Index position(const std::string& k) {
    Index full;
    full.dims = full_;
    full.comps = row_.comps;
    full.comps.insert(full.comps.begin() + static_cast<std::ptrdiff_t>(dim_),
                      w_.let(c_.index_type, "(" + c_.index_type + ")" + k));
    return full;
  }

  // Every slot's position; the row's elements in the first n slots.
  Status load() {
    w_.open("for (jft_i64 jft_k = threadIdx.x; jft_k < " + num(slots_) +
            "ll; jft_k += " + num(threads_) + ") {");
    w_.line("jft_sort_pos[jft_k] = (jft_i32)jft_k;");
    w_.open("if (jft_k < " + num(n_) + "ll) {");
    Elemental::Memo memo = e_.save();
    const Index at = position("jft_k");
    for (size_t j = 0; j < op_.operands.size(); ++j) {
      JFT_ASSIGN_OR_RETURN(std::string v, e_.emit(op_.operands[j], at));
      w_.line(slot_names_[j] + "[jft_k] = " + v + ";");
    }
    e_.restore(std::move(memo));
    w_.close();
    w_.close();
    return Status::ok();
  }

  // Whether slot b's element orders before slot a's: the comparator, then
  // the position; slots past the row after every element.
  StatusOr<std::string> before(const std::string& b, const std::string& a) {
    const std::string pa = w_.let("jft_i32", "jft_sort_pos[" + a + "]");
    const std::string pb = w_.let("jft_i32", "jft_sort_pos[" + b + "]");
    const std::string result = w_.fresh();
    w_.line("bool " + result + " = " + pb + " < " + pa + ";");
    w_.open("if (" + pa + " < " + num(n_) + " && " + pb + " < " + num(n_) + ") {");
    Elemental::Memo memo = e_.save();
    std::vector<std::string> ba, ab;
    for (size_t j = 0; j < op_.operands.size(); ++j) {
      const std::string x = w_.let(types_[j], slot_names_[j] + "[" + b + "]");
      const std::string y = w_.let(types_[j], slot_names_[j] + "[" + a + "]");
      ba.insert(ba.end(), {x, y});
      ab.insert(ab.end(), {y, x});
    }
    JFT_ASSIGN_OR_RETURN(std::string less_ba, comparator(ba));
    JFT_ASSIGN_OR_RETURN(std::string less_ab, comparator(ab));
    w_.line(result + " = " + less_ba + " || (!" + less_ab + " && " + result + ");");
    e_.restore(std::move(memo));
    w_.close();
    return result;
  }

  StatusOr<std::string> comparator(const std::vector<std::string>& args) {
    JFT_ASSIGN_OR_RETURN(std::vector<std::string> r, e_.emitRegion(op_.regions[0], args));
    if (r.size() != 1 ||
        c_.module.typeOf(op_.regions[0].ops.back().operands.at(0)).element !=
            ir::ElementType::PRED)
      return unimplemented(opName(op_) + ": a comparator that returns no single i1");
    return r[0];
  }

  // Bitonic: merges of size jft_m, half-cleaners of distance jft_j; each
  // thread takes pairs (a, a + jft_j) by a pair number jft_p.
  Status network() {
    w_.open("for (jft_i64 jft_m = 2; jft_m <= " + num(slots_) + "ll; jft_m <<= 1) {");
    w_.open("for (jft_i64 jft_j = jft_m >> 1; jft_j > 0; jft_j >>= 1) {");
    w_.open("for (jft_i64 jft_p = threadIdx.x; jft_p < " + num(slots_ / 2) +
            "ll; jft_p += " + num(threads_) + ") {");
    const std::string a = w_.let("jft_i64", "2 * jft_p - (jft_p & (jft_j - 1))");
    const std::string b = w_.let("jft_i64", a + " + jft_j");
    const std::string ascending = w_.let("bool", "(" + a + " & jft_m) == 0");
    // Ascending blocks put the smaller first; descending ones the larger
    // (the order is total, so "a first" is "not b first").
    JFT_ASSIGN_OR_RETURN(std::string b_first, before(b, a));
    w_.open("if (" + b_first + " == " + ascending + ") {");
    for (size_t j = 0; j <= op_.operands.size(); ++j) {
      const std::string& s = j < op_.operands.size() ? slot_names_[j] : pos_name_;
      const std::string& t = j < op_.operands.size() ? types_[j] : pos_type_;
      const std::string keep = w_.let(t, s + "[" + a + "]");
      w_.line(s + "[" + a + "] = " + s + "[" + b + "];");
      w_.line(s + "[" + b + "] = " + keep + ";");
    }
    w_.close();
    w_.close();
    w_.line("__syncthreads();");
    w_.close();
    w_.close();
    return Status::ok();
  }

  const KernelContext& c_;
  CudaWriter& w_;
  Elemental& e_;
  const ir::Op& op_;
  size_t dim_;
  int64_t slots_, threads_;
  std::vector<int64_t> full_, kept_;
  int64_t n_ = 1;
  Index row_;
  std::vector<std::string> types_, slot_names_;
  const std::string pos_name_ = "jft_sort_pos", pos_type_ = "jft_i32";
  std::string shared_;
};

}  // namespace

StatusOr<FamilyKernel> emitSortBody(const KernelContext& c) {
  const fusion::Fusion& fusion = c.fusion;
  JFT_ASSIGN_OR_RETURN(const ir::Op* sort, groupOpOf(c, ir::OpKind::Sort, "sort"));
  const ir::Op& op = *sort;
  const auto* dim = ir::findAttrAs<int64_t>(op.attrs, "dimension");
  if (op.operands.empty() || op.results.size() != op.operands.size() ||
      op.regions.size() != 1 || op.regions[0].args.size() != 2 * op.operands.size())
    return unimplemented(opName(op) + ": malformed sort");
  const std::vector<int64_t>& dims = c.module.typeOf(op.operands[0]).dims;
  if (dim == nullptr || *dim < 0 || static_cast<size_t>(*dim) >= dims.size())
    return unimplemented(opName(op) + ": missing or bad dimension");
  int64_t bytes = 4;  // the position
  for (ir::ValueId v : op.operands) {
    const ir::Type& t = c.module.typeOf(v);
    std::string why;
    if (!isNativeType(t.element, &why)) return unimplemented(opName(op) + " of " + why);
    if (t.dims != dims)
      return unimplemented(opName(op) + ": operands of different shapes");
    bytes += registerBytes(t.element);
  }
  const int64_t n = dims[static_cast<size_t>(*dim)];
  const int64_t slots = nextPow2(std::max<int64_t>(n, 2));
  if (slots * bytes > kSortSharedBytes)
    return unimplemented(
        opName(op) + ": rows of " + num(n) + " elements (" + num(slots * bytes) +
        " bytes of shared memory) exceed a block's " + num(kSortSharedBytes) +
        " bytes; the native sort takes rows of up to " + num(kSortSharedBytes / bytes) +
        " slots");
  const int64_t threads = blockThreads(c, slots / 2, kMaxSortThreads);
  CudaWriter w;
  Elemental elemental(w, c.module, c.function, fusion, c.input_params, c.index_type);
  SortWriter writer(c, w, elemental, op, static_cast<size_t>(*dim), slots, threads);
  JFT_RETURN_IF_ERROR(writer.emit());
  FamilyKernel kernel;
  kernel.body = w.text();
  kernel.shared = writer.shared();
  kernel.num_warps = static_cast<int>(threads / c.options.warp_size);
  kernel.grid = blocksFor(c, writer.rows(), 1);
  return kernel;
}

}  // namespace jft::codegen::native
