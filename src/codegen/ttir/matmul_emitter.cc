#include "codegen/ttir/matmul_emitter.h"

#include <algorithm>
#include <map>
#include <optional>

#include "codegen/ttir/elemental.h"
#include "codegen/ttir/elementwise.h"
#include "codegen/ttir/index_space.h"
#include "codegen/ttir/tf32_rounding.h"
#include "codegen/ttir/tile_choice.h"
#include "fusion/matmul_form.h"

namespace jft::codegen::ttir {
namespace {

using fusion::IndexMap;

int64_t ceilDiv(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// Where a dot operand comes from: a fusion input, loaded as its own element
// type and, when a convert of the group feeds the dot, converted after.
struct OperandSource {
  size_t input = 0;
  ir::ElementType loaded = ir::ElementType::F32;
  const ir::Op* convert = nullptr;
};

class MatmulKernel {
 public:
  MatmulKernel(TtirWriter& writer, const ir::Module& module, const ir::Function& function,
               const fusion::Fusion& fusion, const KernelSignature& signature,
               const std::string& index_type)
      : w_(writer),
        module_(module),
        function_(function),
        fusion_(fusion),
        signature_(signature),
        index_type_(index_type) {}

  StatusOr<Launch> emit() {
    JFT_ASSIGN_OR_RETURN(const ir::Op* dot, findDot());
    std::string why;
    std::optional<fusion::MatmulForm> form = fusion::matmulFormOf(module_, *dot, &why);
    if (!form) return unimplemented(fusion_.name + ": " + why);
    form_ = *form;
    JFT_ASSIGN_OR_RETURN(lhs_, sourceOf(dot->operands[0]));
    JFT_ASSIGN_OR_RETURN(rhs_, sourceOf(dot->operands[1]));
    for (ir::ValueId out : fusion_.outputs)
      if (module_.typeOf(out).dims != module_.typeOf(dot->results[0]).dims)
        return unimplemented(fusion_.name + ": a matmul group output " +
                             module_.typeOf(out).str() + " not of the dot's shape");
    tile_ =
        chooseMatmulTile(form_.batch, form_.m, form_.n, form_.k,
                         ir::bitWidth(form_.operand), form_.input_precision == "ieee");
    const int64_t tiles_m = ceilDiv(form_.m, tile_.m),
                  tiles_n = ceilDiv(form_.n, tile_.n);

    IndexBuilder ix(w_, {tile_.m, tile_.n}, index_type_);
    ix_ = &ix;
    programTile(tiles_m, tiles_n);
    if (form_.m % tile_.m != 0) mask_m_ = ix.compareConst("slt", m_, form_.m);
    if (form_.n % tile_.n != 0) mask_n_ = ix.compareConst("slt", n_, form_.n);
    JFT_ASSIGN_OR_RETURN(const Value acc, kLoop());
    JFT_RETURN_IF_ERROR(epilogue(*dot, acc));

    Launch launch;
    launch.grid = {static_cast<uint32_t>(form_.batch * tiles_m * tiles_n), 1, 1};
    launch.num_warps = tile_.num_warps;
    launch.num_stages = tile_.num_stages;
    launch.tile = std::to_string(tile_.m) + "x" + std::to_string(tile_.n) + "x" +
                  std::to_string(tile_.k);
    return launch;
  }

 private:
  StatusOr<const ir::Op*> findDot() const {
    const ir::Op* dot = nullptr;
    for (size_t at : fusion_.ops) {
      const ir::Op& op = function_.body.ops.at(at);
      if (op.kind != ir::OpKind::DotGeneral) continue;
      if (dot != nullptr) return unimplemented(fusion_.name + ": two dots in one group");
      dot = &op;
    }
    if (dot == nullptr)
      return unimplemented(fusion_.name + ": a matmul group without a dot");
    return dot;
  }

  std::optional<size_t> inputIndex(ir::ValueId value) const {
    auto it = std::find(fusion_.inputs.begin(), fusion_.inputs.end(), value);
    if (it == fusion_.inputs.end()) return std::nullopt;
    return static_cast<size_t>(it - fusion_.inputs.begin());
  }

  StatusOr<OperandSource> sourceOf(ir::ValueId operand) const {
    if (std::optional<size_t> in = inputIndex(operand))
      return OperandSource{*in, module_.typeOf(operand).element, nullptr};
    for (size_t at : fusion_.ops) {
      const ir::Op& op = function_.body.ops.at(at);
      if (std::find(op.results.begin(), op.results.end(), operand) == op.results.end())
        continue;
      if (op.kind == ir::OpKind::Convert && op.operands.size() == 1)
        if (std::optional<size_t> in = inputIndex(op.operands[0]))
          return OperandSource{*in, module_.typeOf(op.operands[0]).element, &op};
      break;
    }
    return unimplemented(fusion_.name +
                         ": a dot operand neither an input nor a convert of one");
  }

  // pid -> (batch item b, tile row, tile column): consecutive programs walk
  // the columns of group_m tile rows, so they reuse the same lhs rows and
  // rhs columns while those are in L2 (Triton's matmul tutorial order).
  void programTile(int64_t tiles_m, int64_t tiles_n) {
    IndexBuilder& ix = *ix_;
    const Value pid = ix.programId();
    Value t = pid;
    b_ = ix.scalarConstant(0);
    if (tiles_m * tiles_n == 1) {
      b_ = pid;
      t = ix.scalarConstant(0);
    } else if (form_.batch > 1) {
      const Value per_batch = ix.scalarConstant(tiles_m * tiles_n);
      b_ = ix.scalarBinary("arith.divsi", pid, per_batch);
      t = ix.scalarBinary("arith.remsi", pid, per_batch);
    }
    Value row, col;
    const int64_t group = std::min(tile_.group_m, tiles_m);
    if (tiles_m * tiles_n == 1) {
      row = col = t;
    } else if (group <= 1 || tiles_n <= 1) {
      const Value n = ix.scalarConstant(tiles_n);
      row = ix.scalarBinary("arith.divsi", t, n);
      col = ix.scalarBinary("arith.remsi", t, n);
    } else {
      const Value width = ix.scalarConstant(group * tiles_n);
      const Value first =
          ix.scalarBinary("arith.muli", ix.scalarBinary("arith.divsi", t, width),
                          ix.scalarConstant(group));
      // The last group may hold fewer tile rows.
      const Value size = ix.scalarBinary(
          "arith.minsi", ix.scalarBinary("arith.subi", ix.scalarConstant(tiles_m), first),
          ix.scalarConstant(group));
      const Value in_group = ix.scalarBinary("arith.remsi", t, width);
      row = ix.scalarBinary("arith.addi", first,
                            ix.scalarBinary("arith.remsi", in_group, size));
      col = ix.scalarBinary("arith.divsi", in_group, size);
    }
    const Value row0 = ix.scalarBinary("arith.muli", row, ix.scalarConstant(tile_.m));
    const Value col0 = ix.scalarBinary("arith.muli", col, ix.scalarConstant(tile_.n));
    m_ = ix.add(ix.splat(row0, {tile_.m, 1}), ix.range(0));
    n_ = ix.add(ix.splat(col0, {1, tile_.n}), ix.range(1));
  }

  // The memory offset of linear index `i` (any shape, index type) through
  // `map` (fusion/matmul_form.h).
  Value offsetOf(const Value& i, const IndexMap& map) {
    IndexBuilder& ix = *ix_;
    if (map.empty()) return ix.constant(0, i.shape, index_type_);
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

  // 0..n-1 along `axis` of a 2D tensor ([n, 1] or [1, n]), index type.
  Value range2d(int64_t n, int axis) {
    const std::vector<int64_t> flat{n};
    Value r = w_.op("tt.make_range {end = " + std::to_string(n) +
                        " : i32, start = 0 : i32} : " + tensorType(flat, "i32"),
                    flat, "i32");
    const std::vector<int64_t> shape =
        axis == 0 ? std::vector<int64_t>{n, 1} : std::vector<int64_t>{1, n};
    r = w_.op("tt.expand_dims " + r.name + " {axis = " + std::to_string(1 - axis) +
                  " : i32} : " + r.type + " -> " + tensorType(shape, "i32"),
              shape, "i32");
    return ix_->toIndex(r, false);
  }

  // The operand tile at `offset` (broadcast to `shape`), zero where `mask`
  // is false, converted when a convert feeds the dot.
  StatusOr<Value> loadOperand(const OperandSource& source, const Value& offset,
                              const std::optional<Value>& mask,
                              const std::vector<int64_t>& shape) {
    IndexBuilder& ix = *ix_;
    const std::string mem = memoryType(source.loaded);
    const std::string ptr = "!tt.ptr<" + mem + ">";
    const Value off = ix.broadcast(offset, shape);
    const Value base = w_.op("tt.splat " + signature_.inputs[source.input] + " : " + ptr +
                                 " -> " + tensorType(shape, ptr),
                             shape, ptr);
    const Value address = w_.op(
        "tt.addptr " + base.name + ", " + off.name + " : " + base.type + ", " + off.type,
        shape, ptr);
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
    if (roundsToTf32(source)) tile = roundToTf32(w_, tile);
    return tile;
  }

  // f32 operands under tf32: the MMA would truncate them where cuBLAS
  // rounds (tf32_rounding.h). Values converted from a float of 16 bits or
  // fewer already fit TF32's 10 mantissa bits.
  bool roundsToTf32(const OperandSource& source) const {
    if (form_.operand != ir::ElementType::F32 || form_.input_precision != "tf32")
      return false;
    return source.convert == nullptr || !ir::isFloat(source.loaded) ||
           ir::bitWidth(source.loaded) > 16;
  }

  static std::optional<Value> both(IndexBuilder& ix, const std::optional<Value>& a,
                                   const std::optional<Value>& b) {
    if (a && b) return ix.both(*a, *b);
    return a ? a : b;
  }

  StatusOr<Value> kLoop() {
    IndexBuilder& ix = *ix_;
    const std::vector<int64_t> acc_shape{tile_.m, tile_.n};
    const std::string acc_type = tensorType(acc_shape, "f32");
    // Loop-invariant parts of the addresses: batch item and rows/columns.
    const Value lhs_rows = ix.add(ix.splat(offsetOf(b_, form_.lhs_batch), {1, 1}),
                                  offsetOf(m_, form_.lhs_m));
    const Value rhs_cols = ix.add(ix.splat(offsetOf(b_, form_.rhs_batch), {1, 1}),
                                  offsetOf(n_, form_.rhs_n));
    const Value k_row = range2d(tile_.k, 1), k_col = range2d(tile_.k, 0);
    const Value zero =
        w_.op("arith.constant dense<0.000000e+00> : " + acc_type, acc_shape, "f32");
    const Value lower = ix.scalarConstant(0), upper = ix.scalarConstant(form_.k),
                step = ix.scalarConstant(tile_.k);
    const std::string result = w_.freshName(), k0 = w_.freshName(), acc = w_.freshName();
    w_.open(result + " = scf.for " + k0 + " = " + lower.name + " to " + upper.name +
            " step " + step.name + " iter_args(" + acc + " = " + zero.name + ") -> (" +
            acc_type + ") : " + index_type_ + " {");
    // Values made inside the loop do not dominate what follows it.
    const IndexBuilder::State saved = ix.save();
    const Value k_scalar{k0, index_type_, {}, index_type_};
    const Value ka = ix.add(ix.splat(k_scalar, {1, tile_.k}), k_row);
    const Value kb = ix.add(ix.splat(k_scalar, {tile_.k, 1}), k_col);
    std::optional<Value> mask_ka, mask_kb;
    if (form_.k % tile_.k != 0) {
      mask_ka = ix.compareConst("slt", ka, form_.k);
      mask_kb = ix.compareConst("slt", kb, form_.k);
    }
    JFT_ASSIGN_OR_RETURN(const Value a,
                         loadOperand(lhs_, ix.add(lhs_rows, offsetOf(ka, form_.lhs_k)),
                                     both(ix, mask_m_, mask_ka), {tile_.m, tile_.k}));
    JFT_ASSIGN_OR_RETURN(const Value b,
                         loadOperand(rhs_, ix.add(offsetOf(kb, form_.rhs_k), rhs_cols),
                                     both(ix, mask_kb, mask_n_), {tile_.k, tile_.n}));
    const Value d = w_.op("tt.dot " + a.name + ", " + b.name + ", " + acc +
                              ", inputPrecision = " + form_.input_precision + " : " +
                              a.type + " * " + b.type + " -> " + acc_type,
                          acc_shape, "f32");
    w_.line("scf.yield " + d.name + " : " + acc_type);
    w_.close("}");
    ix.restore(saved);
    return Value{result, acc_type, acc_shape, "f32"};
  }

  // The dot's value at the output tile (rounded to its result type), then
  // every output computed from it and stored.
  Status epilogue(const ir::Op& dot, const Value& acc) {
    IndexBuilder& ix = *ix_;
    Value result = acc;
    if (form_.result != ir::ElementType::F32) {
      const std::string type = registerType(form_.result);
      result = w_.op("arith.truncf " + acc.name + " : " + acc.type + " to " +
                         tensorType(acc.shape, type),
                     acc.shape, type);
    }
    const std::vector<int64_t>& dims = module_.typeOf(dot.results[0]).dims;
    const auto* dn =
        ir::findAttrAs<ir::DotDimensionNumbers>(dot.attrs, "dot_dimension_numbers");
    const size_t batch_rank = dn->lhs_batching_dims.size();
    const size_t m_rank = module_.typeOf(dot.operands[0]).dims.size() - batch_rank -
                          dn->lhs_contracting_dims.size();
    IndexSpace space;
    space.dims = dims;
    // Result dims [batch..., lhs free..., rhs free...]: each group's
    // components from its linear index, row-major.
    auto components = [&](const Value& linear, size_t from, size_t to, bool scalar) {
      int64_t inner = 1;
      for (size_t d = from; d < to; ++d) inner *= dims[d];
      bool leading = true;
      for (size_t d = from; d < to; ++d) {
        inner /= dims[d];
        Value c = linear;
        if (dims[d] == 1) {
          c = ix.indexConstant(0, ix.ones());
        } else {
          c = ix.divConst(linear, inner);
          if (!leading) c = ix.remConst(c, dims[d]);
          if (scalar) c = ix.splat(c, ix.ones());
          leading = false;
        }
        space.comps.emplace_back(c);
      }
    };
    components(b_, 0, batch_rank, true);
    components(m_, batch_rank, batch_rank + m_rank, false);
    components(n_, batch_rank + m_rank, dims.size(), false);
    space.linear =
        ix.add(ix.add(ix.splat(ix.scalarBinary("arith.muli", b_,
                                               ix.scalarConstant(form_.m * form_.n)),
                               ix.ones()),
                      ix.mulConst(m_, form_.n)),
               n_);
    if (mask_m_) space.bounds.push_back(*mask_m_);
    if (mask_n_) space.bounds.push_back(*mask_n_);
    const int root = ix.intern(std::move(space));

    Elemental elemental(ix, module_, fusion_, function_, signature_.inputs);
    elemental.define(dot.results[0], root, result);
    for (size_t i = 0; i < fusion_.outputs.size(); ++i) {
      JFT_ASSIGN_OR_RETURN(Value v, elemental.emit(fusion_.outputs[i], root));
      elemental.store(signature_.outputs[i], module_.typeOf(fusion_.outputs[i]).element,
                      v, root);
    }
    return Status::ok();
  }

  TtirWriter& w_;
  const ir::Module& module_;
  const ir::Function& function_;
  const fusion::Fusion& fusion_;
  const KernelSignature& signature_;
  const std::string index_type_;
  IndexBuilder* ix_ = nullptr;
  fusion::MatmulForm form_;
  MatmulTile tile_;
  OperandSource lhs_, rhs_;
  Value b_, m_, n_;  // batch item (scalar), rows [BM, 1], columns [1, BN]
  std::optional<Value> mask_m_, mask_n_;
};

}  // namespace

StatusOr<Launch> emitMatmulKernel(TtirWriter& writer, const ir::Module& module,
                                  const ir::Function& function,
                                  const fusion::Fusion& fusion,
                                  const KernelSignature& signature,
                                  const std::string& index_type) {
  return MatmulKernel(writer, module, function, fusion, signature, index_type).emit();
}

}  // namespace jft::codegen::ttir
