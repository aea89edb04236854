#include "codegen/ttir/elemental.h"

#include <algorithm>
#include <span>

#include "codegen/ttir/complex_emitter.h"
#include "codegen/ttir/elementwise.h"
#include "codegen/ttir/elementwise_internal.h"
#include "codegen/ttir/gather_emitter.h"
#include "codegen/ttir/memory_access.h"
#include "codegen/ttir/window_emitter.h"
#include "ir/op_kind.h"

namespace jft::codegen::ttir {
const std::vector<int64_t>& dimsOf(const ir::Module& module, ir::ValueId value) {
  return module.typeOf(value).dims;
}

Elemental::Elemental(IndexBuilder& index, const ir::Module& module,
                     const fusion::Fusion& fusion, const ir::Function& function,
                     std::vector<std::string> input_params)
    : index_(index),
      module_(module),
      fusion_(fusion),
      input_params_(std::move(input_params)) {
  for (size_t i = 0; i < fusion.inputs.size(); ++i)
    input_of_.emplace(fusion.inputs[i], i);
  for (size_t at : fusion.ops) {
    const ir::Op& op = function.body.ops.at(at);
    for (size_t r = 0; r < op.results.size(); ++r) def_[op.results[r]] = {&op, r};
  }
}

const ir::Op* Elemental::definingOp(ir::ValueId value) const {
  auto it = def_.find(value);
  return it == def_.end() ? nullptr : it->second.first;
}

void Elemental::restore(State s) {
  index_.restore(std::move(s.index));
  memo_ = std::move(s.memo);
}

int Elemental::scalarSpace() {
  return index_.intern(IndexSpace{});
}

int Elemental::derive(int from, std::vector<int64_t> dims, std::vector<Value> comps,
                      std::optional<Value> valid) {
  if (dims.empty()) return scalarSpace();
  IndexSpace s;
  s.dims = std::move(dims);
  for (Value& c : comps) s.comps.emplace_back(std::move(c));
  const IndexSpace& parent = index_.space(from);
  s.bounds = parent.bounds;
  s.valid = parent.valid;
  if (valid) s.valid = s.valid ? index_.both(*s.valid, *valid) : *valid;
  return index_.intern(std::move(s));
}

void Elemental::define(ir::ValueId value, int space, Value tile) {
  // emit() evaluates values without dims at the scalar space.
  if (module_.typeOf(value).dims.empty()) space = scalarSpace();
  memo_.insert_or_assign(std::make_tuple(value, space, 0), std::move(tile));
}

StatusOr<Value> Elemental::emitPart(ir::ValueId value, int space, int part) {
  const int saved = part_;
  part_ = part;
  StatusOr<Value> v = emit(value, space);
  part_ = saved;
  return v;
}

void Elemental::remember(ir::ValueId value, int space, int part, const Value& v) {
  if (module_.typeOf(value).dims.empty()) space = scalarSpace();
  memo_.emplace(std::make_tuple(value, space, part), v);
}

StatusOr<Value> Elemental::emit(ir::ValueId value, int space) {
  const ir::Type& type = module_.typeOf(value);
  if (type.dims.empty()) space = scalarSpace();
  // A real value does not depend on the part being computed: its operands
  // are read whole (complex ones through emitPart).
  const int part = type.isTensor() && ir::isComplex(type.element) ? part_ : 0;
  const int outer_part = part_;
  part_ = part;
  StatusOr<Value> v = emitKeyed(value, space, part);
  part_ = outer_part;
  return v;
}

StatusOr<Value> Elemental::emitKeyed(ir::ValueId value, int space, int part) {
  const auto key = std::make_tuple(value, space, part);
  if (auto it = memo_.find(key); it != memo_.end()) return it->second;
  Value result;
  if (auto in = input_of_.find(value); in != input_of_.end()) {
    JFT_ASSIGN_OR_RETURN(result, load(in->second, space));
  } else {
    auto def = def_.find(value);
    if (def == def_.end())
      return internalError("value %" + std::to_string(value) +
                           " is neither an input of the fusion nor defined in it");
    JFT_ASSIGN_OR_RETURN(result, emitOp(*def->second.first, def->second.second, space));
  }
  memo_.emplace(key, result);
  return result;
}

StatusOr<Value> Elemental::load(size_t input, int space) {
  const ir::Type& type = module_.typeOf(fusion_.inputs[input]);
  if (!type.isTensor())
    return unimplemented("fusion input of type " + type.str() +
                         " cannot be loaded by TTIR");
  // A complex input is read one part at a time: element i's part p is the
  // component at 2i + p.
  const bool complex = ir::isComplex(type.element);
  const ir::ElementType element =
      complex ? ir::complexComponent(type.element) : type.element;
  TtirWriter& w = index_.writer();
  const std::string mem = memoryType(element);
  const std::string ptr = "!tt.ptr<" + mem + ">";
  std::string param = input_params_[input];
  if (type.dims.empty()) {
    if (complex && part_ == 1)
      param = w.op("tt.addptr " + param + ", " + index_.scalarConstant(1).name + " : " +
                       ptr + ", " + index_.indexType(),
                   {}, ptr)
                  .name;
    Value s = w.op("tt.load " + param + " : " + ptr, {}, mem);
    return loadedToRegister(w, element, index_.splat(s, index_.ones()));
  }
  Value offset = index_.linear(space);
  if (complex) offset = index_.addConst(index_.mulConst(offset, 2), part_);
  const std::optional<Value> mask = index_.accessMask(space, offset.shape);
  const std::vector<int64_t> shape =
      mask ? IndexBuilder::join(offset.shape, mask->shape) : offset.shape;
  const Value address = index_.broadcast(pointerTile(w, param, element, offset), shape);
  return loadTile(index_, element, address, mask);
}

void Elemental::store(const std::string& param, ir::ElementType element,
                      const Value& value, int space, int part) {
  const bool complex = ir::isComplex(element);
  if (complex) element = ir::complexComponent(element);
  Value offset = index_.linear(space);
  if (complex) offset = index_.addConst(index_.mulConst(offset, 2), part);
  const std::optional<Value> mask = index_.fullMask(space);
  std::vector<int64_t> shape = IndexBuilder::join(offset.shape, value.shape);
  if (mask) shape = IndexBuilder::join(shape, mask->shape);
  const Value address =
      index_.broadcast(pointerTile(index_.writer(), param, element, offset), shape);
  storeTile(index_, element, address, value, mask);
}

StatusOr<Value> Elemental::emitOp(const ir::Op& op, size_t result, int space) {
  using K = ir::OpKind;
  switch (op.kind) {
    case K::Constant:
      return emitConstant(op);
    case K::BroadcastInDim:
    case K::Broadcast:
      return emitBroadcastInDim(op, space);
    case K::Transpose:
      return emitTranspose(op, space);
    case K::Reshape:
      return emitReshape(op, space);
    case K::Slice:
      return emitSlice(op, space);
    case K::Pad:
      return emitPad(op, space);
    case K::Concatenate:
      return emitConcatenate(op, space);
    case K::Iota:
      return emitIota(op, space);
    case K::Reverse:
      return emitReverse(op, space);
    case K::DynamicSlice:
      return emitDynamicSlice(op, space);
    case K::DynamicUpdateSlice:
      return emitDynamicUpdateSlice(op, space);
    case K::Gather:
      return emitGather(*this, op, space);
    case K::ReduceWindow: {
      // Every result at once (one walk of the window); the others memoised.
      JFT_ASSIGN_OR_RETURN(std::vector<Value> all, emitReduceWindow(*this, op, space));
      for (size_t r = 0; r < all.size() && r < op.results.size(); ++r)
        if (r != result) memo_.emplace(std::make_tuple(op.results[r], space, 0), all[r]);
      return all.at(result);
    }
    case K::SelectAndScatter:
      return emitSelectAndScatter(*this, op, space);
    case K::Reduce:
      if (!reduce_hook)
        return unimplemented(opName(op) + ": a reduce needs the reduction kernel family");
      return reduce_hook(op, result, space, part_);
    default:
      break;
  }
  if (touchesComplex(module_, op)) return emitComplexOp(*this, op, space, part_);
  std::string why;
  if (!isEmittableElementwise(module_, op, &why))
    return unimplemented(
        opName(op) + " (" + module_.typeOf(op.results.at(0)).str() +
        ") has no TTIR emitter: " + (why.empty() ? "unsupported op" : why));
  return emitElementwiseOp(op, space);
}

StatusOr<Value> Elemental::emitConstant(const ir::Op& op) {
  JFT_ASSIGN_OR_RETURN(const ir::DenseElements* value, common::splatValue(op));
  ir::ElementType element = value->type.element;
  const std::span<const uint8_t> first = value->element(0);
  std::string_view bytes(reinterpret_cast<const char*>(first.data()), first.size());
  if (ir::isComplex(element)) {  // (re, im): this part's half
    element = ir::complexComponent(element);
    bytes = bytes.substr(part_ == 1 ? bytes.size() / 2 : 0, bytes.size() / 2);
  }
  return emitSplatConstant(index_.writer(), element, index_.ones(), bytes);
}

StatusOr<Value> Elemental::emitElementwiseOp(const ir::Op& op, int space) {
  std::vector<Value> operands;
  std::vector<int64_t> shape = index_.ones();
  for (ir::ValueId v : op.operands) {
    JFT_ASSIGN_OR_RETURN(Value x, emit(v, space));
    shape = IndexBuilder::join(shape, x.shape);
    operands.push_back(std::move(x));
  }
  for (Value& x : operands) x = index_.broadcast(x, shape);
  return emitElementwise(index_.writer(), module_, op, operands);
}

StatusOr<Value> Elemental::emitBroadcastInDim(const ir::Op& op, int space) {
  const std::vector<int64_t>& in = dimsOf(module_, op.operands.at(0));
  JFT_ASSIGN_OR_RETURN(
      const std::vector<size_t> map,
      common::broadcastDims(op, in.size(), index_.space(space).dims.size()));
  std::vector<Value> comps;
  for (size_t i = 0; i < in.size(); ++i)
    comps.push_back(in[i] == 1 ? index_.indexConstant(0, index_.ones())
                               : index_.component(space, map[i]));
  return emit(op.operands[0], derive(space, in, std::move(comps)));
}

StatusOr<Value> Elemental::emitTranspose(const ir::Op& op, int space) {
  const std::vector<int64_t>& in = dimsOf(module_, op.operands.at(0));
  JFT_ASSIGN_OR_RETURN(const std::vector<size_t> perm,
                       common::permutation(op, in.size()));
  std::vector<Value> comps(in.size());
  for (size_t i = 0; i < perm.size(); ++i) comps[perm[i]] = index_.component(space, i);
  return emit(op.operands[0], derive(space, in, std::move(comps)));
}

StatusOr<Value> Elemental::emitReshape(const ir::Op& op, int space) {
  const std::vector<int64_t>& in = dimsOf(module_, op.operands.at(0));
  const IndexSpace s = index_.space(space);
  bool all_comps = true;
  for (const auto& c : s.comps) all_comps = all_comps && c.has_value();
  if (s.linear && !all_comps) {  // already linear: the reshape costs nothing
    IndexSpace t;
    t.dims = in;
    t.linear = s.linear;
    t.bounds = s.bounds;
    t.valid = s.valid;
    if (in.empty()) return emit(op.operands[0], scalarSpace());
    return emit(op.operands[0], index_.intern(std::move(t)));
  }
  // Dims are matched in groups of equal products, so only the groups that
  // really regroup elements pay for a linearise/delinearise.
  const std::vector<int64_t>& out = s.dims;
  std::vector<Value> comps(in.size());
  JFT_ASSIGN_OR_RETURN(const std::vector<common::ReshapeGroup> groups,
                       common::reshapeGroups(op, out, in));
  for (const common::ReshapeGroup& g : groups) {
    for (size_t k = g.in_begin; k < g.in_end; ++k)
      comps[k] = index_.indexConstant(0, index_.ones());
    if (g.out_big.size() <= 1 && g.in_big.size() <= 1) {
      if (!g.in_big.empty())
        comps[g.in_big[0]] = index_.component(space, g.out_big.at(0));
      continue;
    }
    std::optional<Value> l;
    int64_t stride = 1;
    for (size_t k = g.out_end; k-- > g.out_begin;) {
      if (out[k] == 1) continue;
      Value term = index_.mulConst(index_.component(space, k), stride);
      l = l ? index_.add(*l, term) : term;
      stride *= out[k];
    }
    stride = 1;
    for (size_t k = g.in_end; k-- > g.in_begin;) {
      if (in[k] == 1) continue;
      Value c = index_.divConst(*l, stride);
      if (k != g.in_big.front()) c = index_.remConst(c, in[k]);
      comps[k] = c;
      stride *= in[k];
    }
  }
  return emit(op.operands[0], derive(space, in, std::move(comps)));
}

StatusOr<Value> Elemental::emitSlice(const ir::Op& op, int space) {
  const std::vector<int64_t>& in = dimsOf(module_, op.operands.at(0));
  JFT_ASSIGN_OR_RETURN(const common::SliceAttrs a, common::sliceAttrs(op, in.size()));
  std::vector<Value> comps;
  for (size_t d = 0; d < in.size(); ++d)
    comps.push_back(index_.addConst(
        index_.mulConst(index_.component(space, d), a.strides[d]), a.start[d]));
  return emit(op.operands[0], derive(space, in, std::move(comps)));
}

StatusOr<Value> Elemental::emitPad(const ir::Op& op, int space) {
  const std::vector<int64_t>& in = dimsOf(module_, op.operands.at(0));
  JFT_ASSIGN_OR_RETURN(const common::PadAttrs a, common::padAttrs(op, in.size()));
  std::vector<Value> comps;
  std::optional<Value> valid;
  for (size_t d = 0; d < in.size(); ++d) {
    Value j = index_.addConst(index_.component(space, d), -a.low[d]);
    const int64_t step = a.interior[d] + 1;
    if (a.interior[d] == 0 && a.low[d] == 0 && a.high[d] <= 0) {
      comps.push_back(j);
      continue;
    }
    // Unsigned compare: a negative j (inside the low padding) is huge.
    Value ok = index_.compareConst("ult", j, in[d] == 0 ? 0 : (in[d] - 1) * step + 1);
    if (step > 1) {
      ok = index_.both(ok, index_.compareConst("eq", index_.remConst(j, step), 0));
      j = index_.divConst(j, step);
    }
    valid = valid ? index_.both(*valid, ok) : ok;
    comps.push_back(j);
  }
  JFT_ASSIGN_OR_RETURN(Value v, emit(op.operands[0], derive(space, in, comps, valid)));
  if (!valid) return v;
  JFT_ASSIGN_OR_RETURN(Value pad, emit(op.operands.at(1), scalarSpace()));
  return index_.select(*valid, v, pad);
}

StatusOr<Value> Elemental::emitConcatenate(const ir::Op& op, int space) {
  const auto* dim_attr = ir::findAttrAs<int64_t>(op.attrs, "dimension");
  if (!dim_attr) return unimplemented(opName(op) + ": missing dimension");
  const size_t dim = static_cast<size_t>(*dim_attr);
  const IndexSpace s = index_.space(space);
  const Value c = index_.component(space, dim);
  std::vector<Value> values;
  std::vector<int64_t> offsets;
  int64_t offset = 0;
  for (ir::ValueId operand : op.operands) {
    const std::vector<int64_t>& in = dimsOf(module_, operand);
    std::vector<Value> comps;
    for (size_t d = 0; d < in.size(); ++d)
      comps.push_back(d == dim ? index_.addConst(c, -offset)
                               : index_.component(space, d));
    const Value inside = index_.compareConst("ult", comps[dim], in[dim]);
    JFT_ASSIGN_OR_RETURN(Value v, emit(operand, derive(space, in, comps, inside)));
    values.push_back(v);
    offsets.push_back(offset);
    offset += in[dim];
  }
  Value result = values.back();
  for (size_t t = values.size() - 1; t-- > 0;)
    result =
        index_.select(index_.compareConst("slt", c, offsets[t + 1]), values[t], result);
  return result;
}

StatusOr<Value> Elemental::emitIota(const ir::Op& op, int space) {
  const auto* dim = ir::findAttrAs<int64_t>(op.attrs, "iota_dimension");
  if (!dim) return unimplemented(opName(op) + ": missing iota_dimension");
  const ir::ElementType element = module_.typeOf(op.results.at(0)).element;
  Value c = index_.component(space, static_cast<size_t>(*dim));
  TtirWriter& w = index_.writer();
  const std::string reg = registerType(element);
  const std::string to = tensorType(c.shape, reg);
  if (ir::isInteger(element)) {
    const int from_bits = std::stoi(c.scalar.substr(1)), bits = ir::bitWidth(element);
    if (bits == from_bits) return c;
    return w.op(std::string(bits < from_bits ? "arith.trunci " : "arith.extsi ") +
                    c.name + " : " + c.type + " to " + to,
                c.shape, reg);
  }
  if (!ir::isFloat(element))
    return unimplemented(opName(op) + " of " + std::string(ir::elementTypeName(element)));
  // As a convert of the index: float8 has no integer conversion in Triton.
  const ir::ElementType index =
      c.scalar == "i64" ? ir::ElementType::I64 : ir::ElementType::I32;
  return ew::emitConvert(w, index, element, c);
}

StatusOr<Value> Elemental::emitReverse(const ir::Op& op, int space) {
  const std::vector<int64_t>& in = dimsOf(module_, op.operands.at(0));
  const std::vector<int64_t> dims = intsAttr(op, "dimensions");
  std::vector<Value> comps;
  for (size_t d = 0; d < in.size(); ++d) {
    Value c = index_.component(space, d);
    if (std::find(dims.begin(), dims.end(), static_cast<int64_t>(d)) != dims.end())
      c = index_.binary("arith.subi", index_.indexConstant(in[d] - 1, c.shape), c);
    comps.push_back(c);
  }
  return emit(op.operands[0], derive(space, in, std::move(comps)));
}

StatusOr<std::vector<Value>> Elemental::clampedStarts(
    const ir::Op& op, size_t first, const std::vector<int64_t>& operand_dims,
    const std::vector<int64_t>& sizes) {
  std::vector<Value> starts;
  for (size_t d = 0; d < operand_dims.size(); ++d) {
    const ir::ValueId id = op.operands.at(first + d);
    const ir::ElementType element = module_.typeOf(id).element;
    JFT_RETURN_IF_ERROR(common::checkStartIndex(op, element));
    JFT_ASSIGN_OR_RETURN(const Value v, emit(id, scalarSpace()));
    starts.push_back(index_.clampToIndex(v, element, operand_dims[d] - sizes[d]));
  }
  return starts;
}

StatusOr<Value> Elemental::emitDynamicSlice(const ir::Op& op, int space) {
  const std::vector<int64_t>& in = dimsOf(module_, op.operands.at(0));
  JFT_ASSIGN_OR_RETURN(const std::vector<int64_t> sizes,
                       common::dynamicSliceSizes(op, in.size()));
  JFT_ASSIGN_OR_RETURN(std::vector<Value> starts, clampedStarts(op, 1, in, sizes));
  std::vector<Value> comps;
  for (size_t d = 0; d < in.size(); ++d)
    comps.push_back(index_.add(index_.component(space, d), starts[d]));
  return emit(op.operands[0], derive(space, in, std::move(comps)));
}

StatusOr<Value> Elemental::emitDynamicUpdateSlice(const ir::Op& op, int space) {
  const std::vector<int64_t>& in = dimsOf(module_, op.operands.at(0));
  const std::vector<int64_t>& upd = dimsOf(module_, op.operands.at(1));
  if (upd.size() != in.size() || op.operands.size() != 2 + in.size())
    return unimplemented(opName(op) + ": bad operands");
  JFT_ASSIGN_OR_RETURN(std::vector<Value> starts, clampedStarts(op, 2, in, upd));
  std::vector<Value> comps;
  std::optional<Value> inside;
  for (size_t d = 0; d < in.size(); ++d) {
    Value j = index_.binary("arith.subi", index_.component(space, d), starts[d]);
    Value ok = index_.compareConst("ult", j, upd[d]);
    inside = inside ? index_.both(*inside, ok) : ok;
    comps.push_back(j);
  }
  JFT_ASSIGN_OR_RETURN(Value base, emit(op.operands[0], space));
  if (!inside) return base;  // rank 0: the update replaces the operand
  JFT_ASSIGN_OR_RETURN(Value update,
                       emit(op.operands[1], derive(space, upd, comps, inside)));
  return index_.select(*inside, update, base);
}

}  // namespace jft::codegen::ttir
