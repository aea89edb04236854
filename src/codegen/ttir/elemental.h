// The elemental emitter: the value of any op of a fusion at an index space.
//
// emit(value, space) writes the ops computing `value` at every lane of the
// space and returns a tile tensor (see index_space.h for its shape); results
// are memoised per (value, space), so a value read twice at one index is
// computed once. Fusion inputs are loaded from their pointer parameter; index
// ops (broadcast, transpose, reshape, slice, pad, concatenate, iota, reverse,
// dynamic slices) map the space and recurse; gather and the window ops
// (window_emitter.h) read their operands at derived spaces; elementwise ops go through
// emitElementwise; a reduce is delegated to the reduction emitter's hook.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "codegen/common/op_attrs.h"
#include "codegen/ttir/index_space.h"
#include "codegen/ttir/ttir_writer.h"
#include "fusion/fusion.h"
#include "ir/module.h"
#include "support/status.h"

namespace jft::codegen::ttir {

class Elemental {
 public:
  // `input_params`: the pointer parameter of each fusion input, in order.
  Elemental(IndexBuilder& index, const ir::Module& module, const fusion::Fusion& fusion,
            const ir::Function& function, std::vector<std::string> input_params);

  StatusOr<Value> emit(ir::ValueId value, int space);
  // A complex value is two real tiles (complex_emitter.h): part 0 (real) or 1
  // (imaginary) of it. emit() of a complex value gives the part being
  // computed (0 outside any complex op); index ops pass it on unchanged.
  StatusOr<Value> emitPart(ir::ValueId value, int space, int part);
  // Gives `value` at `space` an already computed tile (the matmul family's
  // rounded accumulator): emit() returns it instead of computing the op.
  void define(ir::ValueId value, int space, Value tile);
  // Stores `value` (computed at `space`, whose dims are the output's) through
  // `param` with the space's masks; for a complex element type, as part
  // `part` of the interleaved (re, im) pairs.
  void store(const std::string& param, ir::ElementType element, const Value& value,
             int space, int part = 0);

  // Records part `part` of the complex `value` at `space`, computed along
  // with the other part (complex_emitter.cc), so it is not written twice.
  void remember(ir::ValueId value, int space, int part, const Value& v);

  // The value of result `result` of a reduce op at `space` (of that result's
  // shape), part `part` of it when complex (0 otherwise). Set by the
  // reduction emitter; without it a reduce is UNIMPLEMENTED.
  std::function<StatusOr<Value>(const ir::Op& reduce, size_t result, int space, int part)>
      reduce_hook;

  IndexBuilder& index() { return index_; }
  const ir::Module& module() const { return module_; }
  const ir::Op* definingOp(ir::ValueId value) const;

  struct State {
    IndexBuilder::State index;
    std::map<std::tuple<ir::ValueId, int, int>, Value> memo;
  };
  State save() const { return {index_.save(), memo_}; }
  void restore(State s);

  // Values in the index type of the scalar space (shape all ones).
  int scalarSpace();

 private:
  StatusOr<Value> emitKeyed(ir::ValueId value, int space, int part);
  StatusOr<Value> emitOp(const ir::Op& op, size_t result, int space);
  StatusOr<Value> load(size_t input, int space);
  StatusOr<Value> emitBroadcastInDim(const ir::Op& op, int space);
  StatusOr<Value> emitTranspose(const ir::Op& op, int space);
  StatusOr<Value> emitReshape(const ir::Op& op, int space);
  StatusOr<Value> emitSlice(const ir::Op& op, int space);
  StatusOr<Value> emitPad(const ir::Op& op, int space);
  StatusOr<Value> emitConcatenate(const ir::Op& op, int space);
  StatusOr<Value> emitIota(const ir::Op& op, int space);
  StatusOr<Value> emitReverse(const ir::Op& op, int space);
  StatusOr<Value> emitDynamicSlice(const ir::Op& op, int space);
  StatusOr<Value> emitDynamicUpdateSlice(const ir::Op& op, int space);
  StatusOr<Value> emitConstant(const ir::Op& op);
  StatusOr<Value> emitElementwiseOp(const ir::Op& op, int space);
  // Start indices of a dynamic slice, clamped to [0, dim - size], index type.
  StatusOr<std::vector<Value>> clampedStarts(const ir::Op& op, size_t first,
                                             const std::vector<int64_t>& operand_dims,
                                             const std::vector<int64_t>& sizes);
  // A space over `dims` with the components given and `from`'s masks (and
  // `valid` added to them when set).
  int derive(int from, std::vector<int64_t> dims, std::vector<Value> comps,
             std::optional<Value> valid = std::nullopt);

  IndexBuilder& index_;
  const ir::Module& module_;
  const fusion::Fusion& fusion_;
  std::vector<std::string> input_params_;
  std::map<ir::ValueId, size_t> input_of_;
  std::map<ir::ValueId, std::pair<const ir::Op*, size_t>> def_;
  std::map<std::tuple<ir::ValueId, int, int>, Value> memo_;  // (value, space, part)
  int part_ = 0;
};

using common::intsAttr;
using common::opName;
const std::vector<int64_t>& dimsOf(const ir::Module& module, ir::ValueId value);

}  // namespace jft::codegen::ttir
