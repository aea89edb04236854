// The native elemental emitter: the value of any op of a fusion at one
// element, as CUDA C.
//
// An Index names an element of an IR value: one C expression per dim (a
// variable or "0") and, when known, the row-major linear index. emit(value,
// index) writes the statements computing that element and returns the name
// holding it; results are memoised per (value, index), so a value read twice
// at one index is computed once. Fusion inputs are loaded from their pointer
// parameter; index ops (broadcast, transpose, reshape, slice, pad,
// concatenate, iota, reverse, dynamic slices, gather) map the index and recurse;
// elementwise ops go through scalar_ops.h. Pad, concatenate and
// dynamic_update_slice read their operands at clamped in-range indices and
// select, so every load stays in bounds without branches (all values are
// computed everywhere, as the TTIR route's masked loads do). A reduce is
// defined from outside (the reduction kernel) for its kernel's row.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "codegen/common/op_attrs.h"
#include "codegen/native/cuda_writer.h"
#include "fusion/fusion.h"
#include "ir/module.h"
#include "support/status.h"

namespace jft::codegen::native {

struct Index {
  std::vector<int64_t> dims;
  std::vector<std::string> comps;  // one per dim, in the index type
  std::string linear;              // may be empty: derived from comps on demand
};

class Elemental {
 public:
  // `input_params`: the pointer parameter of each fusion input, in order;
  // `index_type`: "jft_i32" or "jft_i64".
  Elemental(CudaWriter& writer, const ir::Module& module, const ir::Function& function,
            const fusion::Fusion& fusion, std::vector<std::string> input_params,
            std::string index_type);

  StatusOr<std::string> emit(ir::ValueId value, const Index& index);
  // Gives `value` at `index` an already computed element (a reduce's result).
  void define(ir::ValueId value, const Index& index, const std::string& name);
  // The ops of a reduce region (block args: accumulators, then new values)
  // applied to `args`; returns the region's results.
  StatusOr<std::vector<std::string>> emitRegion(const ir::Region& region,
                                                const std::vector<std::string>& args);

  // The index of `dims` from a row-major linear index expression.
  Index delinearize(const std::vector<int64_t>& dims, const std::string& linear);
  std::string linearOf(const Index& index);
  const std::string& indexType() const { return index_type_; }
  CudaWriter& writer() { return writer_; }

  // Values computed inside a loop body are not visible after it: the memo is
  // saved before and restored after such a body.
  using Memo = std::map<std::pair<ir::ValueId, std::string>, std::string>;
  Memo save() const { return memo_; }
  void restore(Memo memo) { memo_ = std::move(memo); }

 private:
  StatusOr<std::string> emitOp(const ir::Op& op, size_t result, const Index& index);
  StatusOr<std::string> load(size_t input, const Index& index);
  StatusOr<std::string> emitConstant(const ir::Op& op);
  StatusOr<std::string> emitBroadcast(const ir::Op& op, const Index& index);
  StatusOr<std::string> emitTranspose(const ir::Op& op, const Index& index);
  StatusOr<std::string> emitReshape(const ir::Op& op, const Index& index);
  StatusOr<std::string> emitSlice(const ir::Op& op, const Index& index);
  StatusOr<std::string> emitPad(const ir::Op& op, const Index& index);
  StatusOr<std::string> emitConcatenate(const ir::Op& op, const Index& index);
  StatusOr<std::string> emitIota(const ir::Op& op, const Index& index);
  StatusOr<std::string> emitReverse(const ir::Op& op, const Index& index);
  StatusOr<std::string> emitDynamicSlice(const ir::Op& op, const Index& index);
  StatusOr<std::string> emitDynamicUpdateSlice(const ir::Op& op, const Index& index);
  StatusOr<std::string> emitGather(const ir::Op& op, const Index& index);  // gather.cc
  StatusOr<std::string> emitElementwiseOp(const ir::Op& op, const Index& index);
  StatusOr<std::vector<std::string>> clampedStarts(const ir::Op& op, size_t first,
                                                   const std::vector<int64_t>& dims,
                                                   const std::vector<int64_t>& sizes);
  // An integer start index clamped to [0, hi] in its own type, then widened.
  std::string clampStart(const std::string& v, ir::ElementType element, int64_t hi);
  std::string ix(const std::string& expr);  // declares an index-typed local
  std::string key(const Index& index) const;

  CudaWriter& writer_;
  const ir::Module& module_;
  const fusion::Fusion& fusion_;
  std::vector<std::string> input_params_;
  std::string index_type_;
  std::map<ir::ValueId, size_t> input_of_;
  std::map<ir::ValueId, std::pair<const ir::Op*, size_t>> def_;
  Memo memo_;
};

using common::intsAttr;
using common::opName;
std::string num(int64_t v);  // decimal text

}  // namespace jft::codegen::native
