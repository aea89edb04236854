#include "codegen/ttir/loop_emitter.h"

#include <limits>

#include "codegen/ttir/elemental.h"
#include "codegen/ttir/elementwise.h"
#include "codegen/ttir/index_space.h"
#include "codegen/ttir/tile_choice.h"
#include "ir/op_kind.h"
#include "support/int_lists.h"

namespace jft::codegen::ttir {

namespace {

// Only elementwise ops over one shape, scalars broadcast into it: the linear
// index is all any of them needs.
bool isFlat(const ir::Module& module, const ir::Function& function,
            const fusion::Fusion& fusion, const std::vector<int64_t>& dims) {
  if (dims.size() <= 1) return true;
  for (ir::ValueId in : fusion.inputs) {
    const auto& d = module.typeOf(in).dims;
    if (!d.empty() && d != dims) return false;
  }
  for (size_t at : fusion.ops) {
    const ir::Op& op = function.body.ops[at];
    if (op.kind == ir::OpKind::Constant) continue;
    if (op.kind == ir::OpKind::BroadcastInDim &&
        module.typeOf(op.operands.at(0)).dims.empty())
      continue;
    if (!isEmittableElementwise(module, op, nullptr)) return false;
  }
  return true;
}

// A transpose that moves the last dim: reads then run along another axis.
bool isTransposing(const ir::Function& function, const fusion::Fusion& fusion) {
  for (size_t at : fusion.ops) {
    const ir::Op& op = function.body.ops[at];
    if (op.kind != ir::OpKind::Transpose) continue;
    const std::vector<int64_t> perm = intsAttr(op, "permutation");
    if (!perm.empty() && perm.back() != static_cast<int64_t>(perm.size()) - 1)
      return true;
  }
  return false;
}

// How much code one element of the body makes (see chooseLoopTile).
int64_t loopBodyWeight(const ir::Function& function, const fusion::Fusion& fusion) {
  int64_t weight = 0;
  for (size_t at : fusion.ops) {
    const ir::OpKind kind = function.body.ops[at].kind;
    if (kind == ir::OpKind::Constant || kind == ir::OpKind::BroadcastInDim) continue;
    weight += callsMathLibrary(kind) ? kMathCallWeight : 1;
  }
  return weight;
}

}  // namespace

StatusOr<Launch> emitLoopKernel(const KernelInputs& in) {
  const ir::Module& module = in.group.module;
  const ir::Function& function = in.group.function;
  const fusion::Fusion& fusion = in.group.fusion;
  if (fusion.outputs.empty())
    return unimplemented(fusion.name + ": a loop group without outputs");
  const std::vector<int64_t> dims = module.typeOf(fusion.outputs[0]).dims;
  for (ir::ValueId out : fusion.outputs)
    if (module.typeOf(out).dims != dims)
      return unimplemented(fusion.name + ": loop outputs of different shapes (" +
                           module.typeOf(fusion.outputs[0]).str() + ", " +
                           module.typeOf(out).str() + ")");
  const int64_t total = product(dims);
  const bool flat = isFlat(module, function, fusion, dims);
  const int64_t inner = flat ? total : dims.back();
  const int64_t outer = flat ? 1 : total / inner;
  const LoopTile tile =
      chooseLoopTile(outer, inner, flat, isTransposing(function, fusion),
                     loopBodyWeight(function, fusion));
  const int64_t col_tiles = ceilDiv(inner, tile.cols),
                row_tiles = ceilDiv(outer, tile.rows);
  if (col_tiles * row_tiles > std::numeric_limits<int32_t>::max())
    return unimplemented(fusion.name + ": more tiles than one grid axis holds");

  IndexBuilder index(
      in.writer,
      flat ? std::vector<int64_t>{tile.cols} : std::vector<int64_t>{tile.rows, tile.cols},
      in.group.index_type);
  const Value pid = index.programId();
  IndexSpace root;
  root.dims = dims;
  if (flat) {
    Value start = index.scalarBinary("arith.muli", pid, index.scalarConstant(tile.cols));
    Value linear = index.add(index.splat(start, {tile.cols}), index.range(0));
    if (total % tile.cols != 0)
      root.bounds.push_back(index.compareConst("slt", linear, total));
    root.linear = linear;
    if (dims.size() == 1) root.comps = {linear};
  } else {
    Value pid_row = pid;
    Value col = index.range(1);
    if (col_tiles > 1) {
      const Value n = index.scalarConstant(col_tiles);
      pid_row = index.scalarBinary("arith.divsi", pid, n);
      Value pid_col = index.scalarBinary("arith.remsi", pid, n);
      Value start =
          index.scalarBinary("arith.muli", pid_col, index.scalarConstant(tile.cols));
      col = index.add(index.splat(start, {1, tile.cols}), col);
    }
    Value start =
        index.scalarBinary("arith.muli", pid_row, index.scalarConstant(tile.rows));
    Value row = index.add(index.splat(start, {tile.rows, 1}), index.range(0));
    if (outer % tile.rows != 0)
      root.bounds.push_back(index.compareConst("slt", row, outer));
    if (inner % tile.cols != 0)
      root.bounds.push_back(index.compareConst("slt", col, inner));
    // The outer multi-index from the row index (no div/rem at rank 2).
    std::vector<int64_t> outer_dims(dims.begin(), dims.end() - 1);
    const std::vector<int64_t> strides = rowMajorStrides(outer_dims);
    bool leading = true;
    for (size_t d = 0; d < outer_dims.size(); ++d) {
      Value c = outer_dims[d] == 1 ? index.indexConstant(0, index.ones())
                                   : index.divConst(row, strides[d]);
      if (outer_dims[d] != 1 && !leading) c = index.remConst(c, outer_dims[d]);
      leading = leading && outer_dims[d] == 1;
      root.comps.push_back(c);
    }
    root.comps.push_back(col);
    root.linear = index.add(index.mulConst(row, inner), col);
  }
  const int space = index.intern(std::move(root));

  Elemental elemental(index, module, fusion, function, in.signature.inputs);
  for (size_t i = 0; i < fusion.outputs.size(); ++i) {
    const ir::ElementType element = module.typeOf(fusion.outputs[i]).element;
    // A complex output is stored one part at a time.
    for (int part = 0; part < (ir::isComplex(element) ? 2 : 1); ++part) {
      JFT_ASSIGN_OR_RETURN(Value v, elemental.emitPart(fusion.outputs[i], space, part));
      elemental.store(in.signature.outputs[i], element, v, space, part);
    }
  }
  Launch launch;
  launch.grid = {static_cast<uint32_t>(col_tiles * row_tiles), 1, 1};
  launch.num_warps = tile.num_warps;
  launch.tile = describeTile(flat ? 1 : tile.rows, tile.cols);
  return launch;
}

}  // namespace jft::codegen::ttir
