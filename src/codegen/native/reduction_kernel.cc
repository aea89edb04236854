// The reduction family (native_kernel.h): one block per kept row, a phase
// per reduce op, then the outputs.
#include <algorithm>
#include <set>

#include "codegen/native/c_types.h"
#include "codegen/native/elemental.h"
#include "codegen/native/family_kernels.h"
#include "ir/op_kind.h"
#include "support/int_lists.h"

namespace jft::codegen::native {
namespace {

constexpr int64_t kMaxThreads = 256;
// What a block may declare statically on every CUDA GPU.
constexpr int64_t kMaxStaticShared = 48 * 1024;

std::vector<int64_t> nonUnit(const std::vector<int64_t>& dims) {
  std::vector<int64_t> out;
  for (int64_t d : dims)
    if (d != 1) out.push_back(d);
  return out;
}

// An index of `dims` naming the same element as `from` when the two shapes
// differ by unit dims only (so reduce results keep their row's names);
// otherwise derived from the linear index.
Index reshaped(Elemental& e, const std::vector<int64_t>& dims, const Index& from) {
  if (nonUnit(dims) != nonUnit(from.dims)) return e.delinearize(dims, e.linearOf(from));
  Index index;
  index.dims = dims;
  size_t next = 0;
  for (int64_t d : dims) {
    if (d == 1) {
      index.comps.push_back("0");
      continue;
    }
    while (from.dims[next] == 1) ++next;
    index.comps.push_back(from.comps[next++]);
  }
  return index;
}

class ReductionWriter {
 public:
  ReductionWriter(const KernelContext& c, CudaWriter& w, Elemental& e, int64_t threads)
      : c_(c), w_(w), e_(e), threads_(threads) {
    const std::set<int64_t> reduced(c.fusion.reduced_dims.begin(),
                                    c.fusion.reduced_dims.end());
    for (size_t d = 0; d < c.fusion.reduce_shape.size(); ++d)
      (reduced.count(static_cast<int64_t>(d)) ? reduced_ : kept_)
          .push_back(c.fusion.reduce_shape[d]);
    rows_ = product(kept_);
    row_length_ = product(reduced_);
  }

  int64_t rows() const { return rows_; }

  Status emit() {
    openBlockRowLoop(w_, rows_);
    row_ = e_.delinearize(
        kept_, e_.writer().let(c_.index_type, "(" + c_.index_type + ")jft_row"));
    for (size_t at : c_.fusion.ops) {
      const ir::Op& op = c_.function.body.ops.at(at);
      if (op.kind == ir::OpKind::Reduce) JFT_RETURN_IF_ERROR(emitReduce(op));
    }
    JFT_RETURN_IF_ERROR(emitOutputs());
    w_.close();
    return Status::ok();
  }

  const std::string& shared() const { return shared_; }

 private:
  // The F index of the reduced position jft_k (declared by the caller's loop).
  Index fullIndex() {
    const Index k =
        e_.delinearize(reduced_, w_.let(c_.index_type, "(" + c_.index_type + ")jft_k"));
    const std::set<int64_t> reduced(c_.fusion.reduced_dims.begin(),
                                    c_.fusion.reduced_dims.end());
    Index full;
    full.dims = c_.fusion.reduce_shape;
    size_t next_kept = 0, next_reduced = 0;
    for (size_t d = 0; d < full.dims.size(); ++d)
      full.comps.push_back(reduced.count(static_cast<int64_t>(d))
                               ? k.comps[next_reduced++]
                               : row_.comps[next_kept++]);
    return full;
  }

  void openRowLoop() {
    w_.open("for (jft_i64 jft_k = threadIdx.x; jft_k < " + std::to_string(row_length_) +
            "ll; jft_k += " + std::to_string(threads_) + ") {");
  }

  Status emitReduce(const ir::Op& op) {
    const size_t n = op.operands.size() / 2;
    if (n == 0 || op.operands.size() != 2 * n || op.results.size() != n ||
        op.regions.size() != 1)
      return unimplemented(opName(op) + ": malformed reduce");
    std::vector<int64_t> dims = intsAttr(op, "dimensions");
    std::sort(dims.begin(), dims.end());
    std::vector<int64_t> group_dims = c_.fusion.reduced_dims;
    std::sort(group_dims.begin(), group_dims.end());
    if (dims != group_dims)
      return unimplemented(opName(op) + ": reduces other dims than its group's");
    std::vector<std::string> types, accs, smem;
    for (size_t j = 0; j < n; ++j) {
      const ir::Type& t = c_.module.typeOf(op.operands[j]);
      if (t.dims != c_.fusion.reduce_shape)
        return unimplemented(opName(op) + ": operand " + t.str() +
                             " is not of the group's reduction shape");
      std::string why;
      if (!isNativeType(t.element, &why)) return unimplemented(opName(op) + " of " + why);
      types.push_back(registerType(t.element));
      JFT_ASSIGN_OR_RETURN(std::string init, e_.emit(op.operands[n + j], Index{}));
      accs.push_back(w_.fresh());
      w_.line(types[j] + " " + accs[j] + " = " + init + ";");
      smem.push_back("jft_smem" + std::to_string(next_smem_++));
      shared_bytes_ +=
          threads_ * (ir::isComplex(t.element) ? 2 : 1) *
          std::max<int64_t>(
              ir::storageBytes(ir::isComplex(t.element) ? ir::complexComponent(t.element)
                                                        : t.element),
              ir::isFloat(t.element) ? 4 : 1);
      if (shared_bytes_ > kMaxStaticShared)
        return unimplemented(opName(op) + ": the group's reduces need more than " +
                             std::to_string(kMaxStaticShared) +
                             " bytes of static shared memory");
      shared_ += "  __shared__ " + types[j] + " " + smem[j] + "[" +
                 std::to_string(threads_) + "];\n";
    }
    // Each thread's strided share of the row.
    openRowLoop();
    Elemental::Memo memo = e_.save();
    const Index full = fullIndex();
    std::vector<std::string> args = accs;
    for (size_t j = 0; j < n; ++j) {
      JFT_ASSIGN_OR_RETURN(std::string x, e_.emit(op.operands[j], full));
      args.push_back(x);
    }
    JFT_ASSIGN_OR_RETURN(std::vector<std::string> combined,
                         e_.emitRegion(op.regions[0], args));
    if (combined.size() != n) return unimplemented(opName(op) + ": region result count");
    for (size_t j = 0; j < n; ++j) w_.line(accs[j] + " = " + combined[j] + ";");
    e_.restore(std::move(memo));
    w_.close();
    // The block's threads combined pairwise through shared memory.
    for (size_t j = 0; j < n; ++j) w_.line(smem[j] + "[threadIdx.x] = " + accs[j] + ";");
    w_.line("__syncthreads();");
    w_.open("for (int jft_s = " + std::to_string(threads_ / 2) +
            "; jft_s > 0; jft_s >>= 1) {");
    w_.open("if ((int)threadIdx.x < jft_s) {");
    memo = e_.save();
    std::vector<std::string> pair;
    for (size_t j = 0; j < n; ++j)
      pair.push_back(w_.let(types[j], smem[j] + "[threadIdx.x]"));
    for (size_t j = 0; j < n; ++j)
      pair.push_back(w_.let(types[j], smem[j] + "[threadIdx.x + jft_s]"));
    JFT_ASSIGN_OR_RETURN(std::vector<std::string> tree,
                         e_.emitRegion(op.regions[0], pair));
    for (size_t j = 0; j < n; ++j) w_.line(smem[j] + "[threadIdx.x] = " + tree[j] + ";");
    e_.restore(std::move(memo));
    w_.close();
    w_.line("__syncthreads();");
    w_.close();
    for (size_t j = 0; j < n; ++j) {
      const std::string result = w_.let(types[j], smem[j] + "[0]");
      const Index at = reshaped(e_, c_.module.typeOf(op.results[j]).dims, row_);
      e_.define(op.results[j], at, result);
    }
    // Nobody overwrites the shared results before everyone has read them.
    w_.line("__syncthreads();");
    return Status::ok();
  }

  Status emitOutputs() {
    std::vector<size_t> kept_outputs, full_outputs;
    for (size_t i = 0; i < c_.fusion.outputs.size(); ++i) {
      const int64_t size = c_.module.typeOf(c_.fusion.outputs[i]).numElements();
      if (size == product(c_.fusion.reduce_shape)) {
        full_outputs.push_back(i);
      } else if (size == rows_) {
        kept_outputs.push_back(i);
      } else {
        return unimplemented(c_.fusion.name + ": output " +
                             c_.module.typeOf(c_.fusion.outputs[i]).str() +
                             " is neither of the kept nor of the reduced shape");
      }
    }
    if (!kept_outputs.empty()) {
      w_.open("if (threadIdx.x == 0) {");
      Elemental::Memo memo = e_.save();
      for (size_t i : kept_outputs) {
        const ir::ValueId out = c_.fusion.outputs[i];
        const Index at = reshaped(e_, c_.module.typeOf(out).dims, row_);
        JFT_ASSIGN_OR_RETURN(std::string v, e_.emit(out, at));
        w_.line(c_.output_params[i] +
                "[jft_row] = " + toStorage(c_.module.typeOf(out).element, v) + ";");
      }
      e_.restore(std::move(memo));
      w_.close();
    }
    if (!full_outputs.empty()) {
      openRowLoop();
      Elemental::Memo memo = e_.save();
      const Index full = fullIndex();
      const std::string linear = e_.linearOf(full);
      for (size_t i : full_outputs) {
        const ir::ValueId out = c_.fusion.outputs[i];
        const Index at = reshaped(e_, c_.module.typeOf(out).dims, full);
        JFT_ASSIGN_OR_RETURN(std::string v, e_.emit(out, at));
        w_.line(c_.output_params[i] + "[" + linear +
                "] = " + toStorage(c_.module.typeOf(out).element, v) + ";");
      }
      e_.restore(std::move(memo));
      w_.close();
    }
    return Status::ok();
  }

  const KernelContext& c_;
  CudaWriter& w_;
  Elemental& e_;
  int64_t threads_;
  std::vector<int64_t> kept_, reduced_;
  int64_t rows_ = 1, row_length_ = 1;
  Index row_;
  std::string shared_;
  int next_smem_ = 0;
  int64_t shared_bytes_ = 0;
};

}  // namespace

StatusOr<FamilyKernel> emitReductionBody(const KernelContext& c) {
  const fusion::Fusion& fusion = c.fusion;
  if (fusion.reduce_shape.empty() || fusion.reduced_dims.empty())
    return unimplemented(fusion.name + ": a reduction group without a reduction shape");
  for (int64_t d : fusion.reduced_dims)
    if (d < 0 || static_cast<size_t>(d) >= fusion.reduce_shape.size())
      return unimplemented(fusion.name + ": reduced dim " + std::to_string(d) +
                           " outside the reduction shape");
  int64_t row_length = 1;
  for (int64_t d : fusion.reduced_dims)
    row_length *= fusion.reduce_shape[static_cast<size_t>(d)];
  const int64_t threads = blockThreads(c, row_length, kMaxThreads);
  CudaWriter w;
  Elemental elemental(w, c.module, c.function, fusion, c.input_params, c.index_type);
  ReductionWriter writer(c, w, elemental, threads);
  JFT_RETURN_IF_ERROR(writer.emit());
  FamilyKernel kernel;
  kernel.body = w.text();
  kernel.shared = writer.shared();
  kernel.grid = blocksFor(c, writer.rows(), 1);
  kernel.num_warps = static_cast<int>(threads / c.options.warp_size);
  return kernel;
}

}  // namespace jft::codegen::native
