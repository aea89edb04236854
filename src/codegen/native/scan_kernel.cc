// The scan family: one cumulative reduction (fusion/scan_form.h) along one
// axis, with its elementwise prologue, inclusive: out[i] = init (+) x[0]
// (+) ... (+) x[i], read back to front for a reverse scan.
//
// The input is viewed as rows (every index but the axis) of n elements.
// Short rows are one thread's sequential loop each (no block would be
// busy); longer rows are one block each, walked in chunks of a block: the
// chunk is scanned in shared memory (Hillis-Steele, earlier lanes on the
// left, so a non-commutative combiner keeps its order) and the running
// carry combined into it, as the TTIR route's tt.scan does. Both are linear
// in n. The chlo.scan composite's final carry (its second result) is the
// row's last value.
#include <algorithm>
#include <optional>

#include "codegen/native/c_types.h"
#include "codegen/native/elemental.h"
#include "codegen/native/family_kernels.h"
#include "fusion/scan_form.h"
#include "support/int_lists.h"

namespace jft::codegen::native {
namespace {

// Rows up to this long are one thread's loop.
constexpr int64_t kThreadRowScan = 32;
constexpr int64_t kMaxScanThreads = 256;

class ScanWriter {
 public:
  ScanWriter(const KernelContext& c, CudaWriter& w, Elemental& e,
             const fusion::ScanForm& form, const ir::Op& op)
      : c_(c), w_(w), e_(e), form_(form), op_(op) {
    full_ = c.module.typeOf(form.input).dims;
    axis_ = static_cast<size_t>(form.axis);
    n_ = full_.at(axis_);
    kept_ = full_;
    kept_.erase(kept_.begin() + form.axis);
    rows_ = product(kept_);
    element_ = c.module.typeOf(op.results.at(0)).element;
    type_ = registerType(element_);
  }

  int64_t rows() const { return rows_; }
  int64_t length() const { return n_; }

  // Which outputs: the scan (result 0) first, then maybe the final carry.
  Status findOutputs() {
    for (size_t i = 0; i < c_.fusion.outputs.size(); ++i) {
      const ir::ValueId out = c_.fusion.outputs[i];
      if (i == 0 && out == op_.results[0]) continue;
      if (op_.results.size() > 1 && out == op_.results[1]) {
        carry_out_ = i;
        continue;
      }
      return unimplemented(opName(op_) +
                           ": a scan kernel stores only its scan's results");
    }
    if (c_.fusion.outputs.empty() || c_.fusion.outputs[0] != op_.results[0])
      return unimplemented(opName(op_) +
                           ": a scan kernel whose scan is not its first output");
    return Status::ok();
  }

  // One thread per row, a sequential loop along it.
  Status emitThreadRows() {
    openGridStrideLoop(w_, rows_);
    JFT_ASSIGN_OR_RETURN(std::string acc, startRow("jft_i"));
    w_.open("for (jft_i64 jft_k = 0; jft_k < " + num(n_) + "ll; ++jft_k) {");
    Elemental::Memo memo = e_.save();
    const Index at = position("jft_k");
    JFT_ASSIGN_OR_RETURN(std::string x, e_.emit(form_.input, at));
    JFT_ASSIGN_OR_RETURN(std::string r, combine(acc, x));
    w_.line(acc + " = " + r + ";");
    store(0, e_.linearOf(at), acc);
    e_.restore(std::move(memo));
    w_.close();
    if (carry_out_) store(*carry_out_, row_linear_, acc);
    w_.close();
    return Status::ok();
  }

  // One block per row, `threads` lanes per chunk.
  Status emitBlockRows(int64_t threads) {
    const std::string smem = "jft_scan";
    shared_ = "  __shared__ " + type_ + " " + smem + "[" + num(threads) + "];\n";
    openBlockRowLoop(w_, rows_);
    JFT_ASSIGN_OR_RETURN(std::string carry, startRow("jft_row"));
    const int64_t chunks = (n_ + threads - 1) / threads;
    w_.open("for (jft_i64 jft_c = 0; jft_c < " + num(chunks) + "ll; ++jft_c) {");
    Elemental::Memo memo = e_.save();
    const std::string k =
        w_.let("jft_i64", "jft_c * " + num(threads) + "ll + threadIdx.x");
    const std::string live = w_.let("bool", k + " < " + num(n_) + "ll");
    // The chunk's last live lane: every thread reads it for the next carry.
    const std::string last =
        w_.let("int", "(int)(" + num(n_) + "ll - jft_c * " + num(threads) + "ll < " +
                          num(threads) + "ll ? " + num(n_) + "ll - jft_c * " +
                          num(threads) + "ll - 1 : " + num(threads - 1) + ")");
    w_.open("if (" + live + ") {");
    {
      Elemental::Memo inner = e_.save();
      JFT_ASSIGN_OR_RETURN(std::string x, e_.emit(form_.input, position(k)));
      w_.line(smem + "[threadIdx.x] = " + x + ";");
      e_.restore(std::move(inner));
    }
    w_.close();
    w_.line("__syncthreads();");
    w_.open("for (int jft_d = 1; jft_d < " + num(threads) + "; jft_d <<= 1) {");
    const std::string v = w_.fresh();
    w_.line(type_ + " " + v + " = " + smem + "[threadIdx.x];");
    w_.open("if (" + live + " && (int)threadIdx.x >= jft_d) {");
    {
      Elemental::Memo inner = e_.save();
      JFT_ASSIGN_OR_RETURN(std::string r, combine(smem + "[threadIdx.x - jft_d]", v));
      w_.line(v + " = " + r + ";");
      e_.restore(std::move(inner));
    }
    w_.close();
    w_.line("__syncthreads();");
    w_.line(smem + "[threadIdx.x] = " + v + ";");
    w_.line("__syncthreads();");
    w_.close();
    w_.open("if (" + live + ") {");
    {
      Elemental::Memo inner = e_.save();
      const Index at = position(k);
      JFT_ASSIGN_OR_RETURN(std::string r, combine(carry, smem + "[threadIdx.x]"));
      store(0, e_.linearOf(at), r);
      e_.restore(std::move(inner));
    }
    w_.close();
    JFT_ASSIGN_OR_RETURN(std::string next, combine(carry, smem + "[" + last + "]"));
    w_.line(carry + " = " + next + ";");
    // Nobody overwrites the chunk before everyone has read its last lane.
    w_.line("__syncthreads();");
    e_.restore(std::move(memo));
    w_.close();
    if (carry_out_) {
      w_.open("if (threadIdx.x == 0) {");
      store(*carry_out_, row_linear_, carry);
      w_.close();
    }
    w_.close();
    return Status::ok();
  }

  const std::string& shared() const { return shared_; }

 private:
  // The row's index and its running value, the init (a mutable local).
  StatusOr<std::string> startRow(const std::string& row) {
    row_linear_ = w_.let(c_.index_type, "(" + c_.index_type + ")" + row);
    row_ = e_.delinearize(kept_, row_linear_);
    const ir::Type& init_type = c_.module.typeOf(form_.init);
    if (!init_type.dims.empty() && init_type.dims != kept_)
      return unimplemented(opName(op_) + ": an init of type " + init_type.str() +
                           " is neither a scalar nor of the rows' shape");
    JFT_ASSIGN_OR_RETURN(std::string init, e_.emit(form_.init, row_));
    const std::string acc = w_.fresh();
    w_.line(type_ + " " + acc + " = " + init + ";");
    return acc;
  }

  // The element at position k of the row (k counted in scan order).
  Index position(const std::string& k) {
    Index full;
    full.dims = full_;
    full.comps = row_.comps;
    const std::string p = form_.reverse ? num(n_ - 1) + " - " + k : k;
    full.comps.insert(full.comps.begin() + form_.axis,
                      w_.let(c_.index_type, "(" + c_.index_type + ")(" + p + ")"));
    return full;
  }

  // earlier (+) later, in the operand order of the op's region.
  StatusOr<std::string> combine(const std::string& earlier, const std::string& later) {
    const std::vector<std::string> args = form_.composite
                                              ? std::vector<std::string>{later, earlier}
                                              : std::vector<std::string>{earlier, later};
    JFT_ASSIGN_OR_RETURN(std::vector<std::string> r, e_.emitRegion(*form_.body, args));
    if (r.empty()) return unimplemented(opName(op_) + ": a scan body without a result");
    return r[0];
  }

  void store(size_t output, const std::string& at, const std::string& value) {
    w_.line(c_.output_params[output] + "[" + at + "] = " + toStorage(element_, value) +
            ";");
  }

  const KernelContext& c_;
  CudaWriter& w_;
  Elemental& e_;
  const fusion::ScanForm& form_;
  const ir::Op& op_;
  std::vector<int64_t> full_, kept_;
  size_t axis_ = 0;
  int64_t n_ = 1, rows_ = 1;
  ir::ElementType element_ = ir::ElementType::F32;
  std::string type_;
  std::optional<size_t> carry_out_;
  std::string row_linear_;
  Index row_;
  std::string shared_;
};

}  // namespace

StatusOr<FamilyKernel> emitScanBody(const KernelContext& c) {
  const fusion::Fusion& fusion = c.fusion;
  if (fusion.ops.empty()) return unimplemented("an empty scan group");
  const ir::Op& op = c.function.body.ops.at(fusion.ops.back());
  const std::optional<fusion::ScanForm> form = fusion::scanFormOf(c.module, op);
  if (!form)
    return unimplemented(opName(op) +
                         ": the scan group's root is not a cumulative "
                         "reduction (fusion/scan_form.h)");
  for (ir::ValueId v : op.results) {
    std::string why;
    if (!isNativeType(c.module.typeOf(v).element, &why))
      return unimplemented(opName(op) + " of " + why);
  }
  CudaWriter w;
  Elemental elemental(w, c.module, c.function, fusion, c.input_params, c.index_type);
  ScanWriter writer(c, w, elemental, *form, op);
  JFT_RETURN_IF_ERROR(writer.findOutputs());
  FamilyKernel kernel;
  if (writer.length() <= kThreadRowScan) {
    JFT_RETURN_IF_ERROR(writer.emitThreadRows());
    kernel.num_warps = static_cast<int>(blockThreads(c, writer.rows(), kMaxScanThreads) /
                                        c.options.warp_size);
    kernel.grid = blocksFor(c, writer.rows(), kernel.num_warps * c.options.warp_size);
  } else {
    const int64_t threads = blockThreads(c, writer.length(), kMaxScanThreads);
    JFT_RETURN_IF_ERROR(writer.emitBlockRows(threads));
    kernel.num_warps = static_cast<int>(threads / c.options.warp_size);
    kernel.grid = blocksFor(c, writer.rows(), 1);
  }
  kernel.body = w.text();
  kernel.shared = writer.shared();
  return kernel;
}

}  // namespace jft::codegen::native
