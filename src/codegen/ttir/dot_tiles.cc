#include "codegen/ttir/dot_tiles.h"

#include <algorithm>

#include "codegen/ttir/elemental.h"
#include "codegen/ttir/elementwise.h"
#include "codegen/ttir/memory_access.h"
#include "codegen/ttir/tf32_rounding.h"
#include "codegen/ttir/tile_ops.h"
#include "support/int_lists.h"

namespace jft::codegen::ttir {

namespace {

std::optional<size_t> inputIndex(const fusion::Fusion& fusion, ir::ValueId value) {
  auto it = std::find(fusion.inputs.begin(), fusion.inputs.end(), value);
  if (it == fusion.inputs.end()) return std::nullopt;
  return static_cast<size_t>(it - fusion.inputs.begin());
}

// Where `operand` is read from, without the TF32 decision.
StatusOr<OperandSource> sourceOf(const ir::Module& module, const ir::Function& function,
                                 const fusion::Fusion& fusion, ir::ValueId operand) {
  if (std::optional<size_t> in = inputIndex(fusion, operand))
    return OperandSource{*in, module.typeOf(operand).element, nullptr};
  for (size_t at : fusion.ops) {
    const ir::Op& op = function.body.ops.at(at);
    if (std::find(op.results.begin(), op.results.end(), operand) == op.results.end())
      continue;
    if (op.kind == ir::OpKind::Convert && op.operands.size() == 1)
      if (std::optional<size_t> in = inputIndex(fusion, op.operands[0]))
        return OperandSource{*in, module.typeOf(op.operands[0]).element, &op};
    break;
  }
  return unimplemented(fusion.name +
                       ": a product operand neither an input nor a convert of one");
}

}  // namespace

StatusOr<const ir::Op*> findProduct(const ir::Function& function,
                                    const fusion::Fusion& fusion, ir::OpKind kind,
                                    const std::string& what) {
  const ir::Op* product = nullptr;
  for (size_t at : fusion.ops) {
    const ir::Op& op = function.body.ops.at(at);
    if (op.kind != kind) continue;
    if (product != nullptr)
      return unimplemented(fusion.name + ": two " + what + "s in one group");
    product = &op;
  }
  if (product == nullptr)
    return unimplemented(fusion.name + ": a " + fusion::familyName(fusion.family) +
                         " group without a " + what);
  return product;
}

StatusOr<OperandSource> operandSource(const ir::Module& module,
                                      const ir::Function& function,
                                      const fusion::Fusion& fusion, ir::ValueId operand,
                                      const std::string& input_precision) {
  JFT_ASSIGN_OR_RETURN(OperandSource source, sourceOf(module, function, fusion, operand));
  const bool exact = source.convert != nullptr && ir::isFloat(source.loaded) &&
                     ir::bitWidth(source.loaded) <= 16;
  source.round_to_tf32 = module.typeOf(operand).element == ir::ElementType::F32 &&
                         input_precision == "tf32" && !exact;
  return source;
}

Status checkProductOutputs(const ir::Module& module, const fusion::Fusion& fusion,
                           ir::ValueId product) {
  for (ir::ValueId out : fusion.outputs)
    if (module.typeOf(out).dims != module.typeOf(product).dims)
      return unimplemented(fusion.name + ": a " + fusion::familyName(fusion.family) +
                           " group output " + module.typeOf(out).str() +
                           " not of the product's shape");
  return Status::ok();
}

Launch productLaunch(int64_t programs, const MatmulTile& tile) {
  Launch launch;
  launch.grid = {static_cast<uint32_t>(programs), 1, 1};
  launch.num_warps = tile.num_warps;
  launch.num_stages = tile.num_stages;
  launch.tile = std::to_string(tile.m) + "x" + std::to_string(tile.n) + "x" +
                std::to_string(tile.k);
  return launch;
}

// pid -> (batch item, tile row, tile column): consecutive programs walk the
// columns of group_m tile rows, so they reuse the same lhs rows and rhs
// columns while those are in L2.
DotTiles::Program DotTiles::programTile(int64_t items, int64_t m, int64_t n,
                                        const MatmulTile& tile) {
  IndexBuilder& ix = ix_;
  const int64_t tiles_m = ceilDiv(m, tile.m), tiles_n = ceilDiv(n, tile.n);
  Program p;
  p.programs = items * tiles_m * tiles_n;
  const Value pid = ix.programId();
  Value t = pid;
  p.item = ix.scalarConstant(0);
  if (tiles_m * tiles_n == 1) {
    p.item = pid;
    t = ix.scalarConstant(0);
  } else if (items > 1) {
    const Value per_item = ix.scalarConstant(tiles_m * tiles_n);
    p.item = ix.scalarBinary("arith.divsi", pid, per_item);
    t = ix.scalarBinary("arith.remsi", pid, per_item);
  }
  Value row, col;
  const int64_t group = std::min(tile.group_m, tiles_m);
  if (tiles_m * tiles_n == 1) {
    row = col = t;
  } else if (group <= 1 || tiles_n <= 1) {
    const Value n = ix.scalarConstant(tiles_n);
    row = ix.scalarBinary("arith.divsi", t, n);
    col = ix.scalarBinary("arith.remsi", t, n);
  } else {
    const Value width = ix.scalarConstant(group * tiles_n);
    const Value first = ix.scalarBinary(
        "arith.muli", ix.scalarBinary("arith.divsi", t, width), ix.scalarConstant(group));
    // The last group may hold fewer tile rows.
    const Value size = ix.scalarBinary(
        "arith.minsi", ix.scalarBinary("arith.subi", ix.scalarConstant(tiles_m), first),
        ix.scalarConstant(group));
    const Value in_group = ix.scalarBinary("arith.remsi", t, width);
    row = ix.scalarBinary("arith.addi", first,
                          ix.scalarBinary("arith.remsi", in_group, size));
    col = ix.scalarBinary("arith.divsi", in_group, size);
  }
  const Value row0 = ix.scalarBinary("arith.muli", row, ix.scalarConstant(tile.m));
  const Value col0 = ix.scalarBinary("arith.muli", col, ix.scalarConstant(tile.n));
  p.rows = ix.add(ix.splat(row0, {tile.m, 1}), ix.range(0));
  p.cols = ix.add(ix.splat(col0, {1, tile.n}), ix.range(1));
  p.mask_m = edgeMask(p.rows, m, tile.m);
  p.mask_n = edgeMask(p.cols, n, tile.n);
  return p;
}

Value DotTiles::offsetOf(const Value& i, const fusion::IndexMap& map) {
  IndexBuilder& ix = ix_;
  if (map.empty()) return ix.constant(0, i.shape, ix.indexType());
  int64_t inner = 1;
  for (const fusion::MemorySegment& s : map) inner *= s.extent;
  std::optional<Value> sum;
  for (size_t s = 0; s < map.size(); ++s) {
    inner /= map[s].extent;
    Value c = ix.divConst(i, inner);
    // The outermost segment needs no remainder for in-range lanes (and
    // out-of-range lanes are masked).
    if (s > 0) c = ix.remConst(c, map[s].extent);
    const Value term = ix.mulConst(c, map[s].stride);
    sum = sum ? ix.add(*sum, term) : term;
  }
  return *sum;
}

Value DotTiles::range2d(int64_t n, int axis) {
  return ix_.toIndex(expandDims(w_, makeRange(w_, n), 1 - axis), false);
}

StatusOr<Value> DotTiles::loadOperand(const OperandSource& source, const Value& offset,
                                      const std::optional<Value>& mask,
                                      const std::vector<int64_t>& shape) {
  IndexBuilder& ix = ix_;
  const std::string mem = memoryType(source.loaded);
  const Value address = pointerTile(w_, signature_.inputs[source.input], source.loaded,
                                    ix.broadcast(offset, shape));
  std::string text = "tt.load " + address.name;
  if (mask) {
    const Value zero = w_.op(
        "arith.constant dense<0.000000e+00> : " + tensorType(shape, mem), shape, mem);
    text += ", " + ix.broadcast(*mask, shape).name + ", " + zero.name;
  }
  Value tile = w_.op(text + " : " + address.type, shape, mem);
  tile = loadedToRegister(w_, source.loaded, tile);
  if (source.convert != nullptr) {
    JFT_ASSIGN_OR_RETURN(tile, emitElementwise(w_, module_, *source.convert, {tile}));
  }
  if (source.round_to_tf32) tile = roundToTf32(w_, tile);
  return tile;
}

StatusOr<std::pair<Value, Value>> DotTiles::stepTiles(const Value& ka, const Value& kb,
                                                      int64_t k, const MatmulTile& tile,
                                                      const LhsTile& lhs,
                                                      const RhsColumns& rhs) {
  const std::optional<Value> mask_ka = edgeMask(ka, k, tile.k);
  const std::optional<Value> mask_kb = edgeMask(kb, k, tile.k);
  JFT_ASSIGN_OR_RETURN(const Value a, lhs(ka, mask_ka));
  JFT_ASSIGN_OR_RETURN(const Value b,
                       loadOperand(rhs.source, ix_.add(offsetOf(kb, rhs.k_map), rhs.cols),
                                   both(mask_kb, rhs.mask_n), {tile.k, tile.n}));
  return std::make_pair(a, b);
}

std::optional<Value> DotTiles::both(const std::optional<Value>& a,
                                    const std::optional<Value>& b) {
  if (a && b) return ix_.both(*a, *b);
  return a ? a : b;
}

std::optional<Value> DotTiles::edgeMask(const Value& lanes, int64_t extent,
                                        int64_t block) {
  if (extent % block == 0) return std::nullopt;
  return ix_.compareConst("slt", lanes, extent);
}

StatusOr<Value> DotTiles::kLoop(int64_t k, int64_t block_k,
                                const std::string& input_precision,
                                const StepTiles& body) {
  IndexBuilder& ix = ix_;
  const std::vector<int64_t> acc_shape = ix.tile();
  const std::string acc_type = tensorType(acc_shape, "f32");
  const std::string index_type = ix.indexType();
  const Value zero =
      w_.op("arith.constant dense<0.000000e+00> : " + acc_type, acc_shape, "f32");
  const Value lower = ix.scalarConstant(0), upper = ix.scalarConstant(k),
              step = ix.scalarConstant(block_k);
  const std::string result = w_.freshName(), k0 = w_.freshName(), acc = w_.freshName();
  w_.open(result + " = scf.for " + k0 + " = " + lower.name + " to " + upper.name +
          " step " + step.name + " iter_args(" + acc + " = " + zero.name + ") -> (" +
          acc_type + ") : " + index_type + " {");
  // Values made inside the loop do not dominate what follows it.
  const IndexBuilder::State saved = ix.save();
  const Value k_scalar{k0, index_type, {}, index_type};
  StatusOr<std::pair<Value, Value>> tiles = body(k_scalar);
  if (!tiles.isOk()) return tiles.status();
  const auto& [a, b] = *tiles;
  const Value d = w_.op("tt.dot " + a.name + ", " + b.name + ", " + acc +
                            ", inputPrecision = " + input_precision + " : " + a.type +
                            " * " + b.type + " -> " + acc_type,
                        acc_shape, "f32");
  w_.line("scf.yield " + d.name + " : " + acc_type);
  w_.close("}");
  ix.restore(saved);
  return Value{result, acc_type, acc_shape, "f32"};
}

Value DotTiles::round(const Value& acc, ir::ElementType result) {
  if (result == ir::ElementType::F32) return acc;
  const std::string type = registerType(result);
  return w_.op("arith.truncf " + acc.name + " : " + acc.type + " to " +
                   tensorType(acc.shape, type),
               acc.shape, type);
}

Status DotTiles::storeOutputs(ir::ValueId product, IndexSpace space, const Value& value,
                              const std::optional<Value>& mask_m,
                              const std::optional<Value>& mask_n) {
  if (mask_m) space.bounds.push_back(*mask_m);
  if (mask_n) space.bounds.push_back(*mask_n);
  return storeOutputs(product, ix_.intern(std::move(space)), value);
}

Status DotTiles::storeOutputs(ir::ValueId product, int space, const Value& value) {
  Elemental elemental(ix_, module_, fusion_, function_, signature_.inputs);
  elemental.define(product, space, value);
  for (size_t i = 0; i < fusion_.outputs.size(); ++i) {
    JFT_ASSIGN_OR_RETURN(Value v, elemental.emit(fusion_.outputs[i], space));
    elemental.store(signature_.outputs[i], module_.typeOf(fusion_.outputs[i]).element, v,
                    space);
  }
  return Status::ok();
}

}  // namespace jft::codegen::ttir
