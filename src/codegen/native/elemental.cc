#include "codegen/native/elemental.h"

#include <algorithm>

#include "codegen/native/c_types.h"
#include "codegen/native/scalar_ops.h"
#include "ir/op_kind.h"
#include "support/int_lists.h"

namespace jft::codegen::native {
namespace {

std::vector<int64_t> rowMajorStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t d = dims.size(); d-- > 1;) strides[d - 1] = strides[d] * dims[d];
  return strides;
}

}  // namespace

std::string num(int64_t v) {
  return std::to_string(v);
}

Elemental::Elemental(CudaWriter& writer, const ir::Module& module,
                     const ir::Function& function, const fusion::Fusion& fusion,
                     std::vector<std::string> input_params, std::string index_type)
    : writer_(writer),
      module_(module),
      fusion_(fusion),
      input_params_(std::move(input_params)),
      index_type_(std::move(index_type)) {
  for (size_t i = 0; i < fusion.inputs.size(); ++i)
    input_of_.emplace(fusion.inputs[i], i);
  for (size_t at : fusion.ops) {
    const ir::Op& op = function.body.ops.at(at);
    for (size_t r = 0; r < op.results.size(); ++r) def_[op.results[r]] = {&op, r};
  }
}

std::string Elemental::ix(const std::string& expr) {
  return writer_.let(index_type_, expr);
}

std::string Elemental::key(const Index& index) const {
  std::string k;
  for (const std::string& c : index.comps) k += c + ",";
  return k + "|" + index.linear;
}

Index Elemental::delinearize(const std::vector<int64_t>& dims,
                             const std::string& linear) {
  Index index;
  index.dims = dims;
  index.linear = linear;
  const std::vector<int64_t> strides = rowMajorStrides(dims);
  bool leading = true;  // the leading non-unit dim needs no remainder
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 1) {
      index.comps.push_back("0");
      continue;
    }
    std::string c =
        strides[d] == 1 ? linear : "(" + linear + " / " + num(strides[d]) + ")";
    if (!leading) c = c + " % " + num(dims[d]);
    leading = false;
    index.comps.push_back(c == linear ? linear : ix(c));
  }
  return index;
}

std::string Elemental::linearOf(const Index& index) {
  if (!index.linear.empty()) return index.linear;
  const std::vector<int64_t> strides = rowMajorStrides(index.dims);
  std::string sum;
  for (size_t d = 0; d < index.dims.size(); ++d) {
    if (index.dims[d] == 1) continue;
    std::string term =
        strides[d] == 1 ? index.comps[d] : index.comps[d] + " * " + num(strides[d]);
    sum += (sum.empty() ? "" : " + ") + term;
  }
  return sum.empty() ? "0" : ix(sum);
}

void Elemental::define(ir::ValueId value, const Index& index, const std::string& name) {
  memo_[{value, key(index)}] = name;
}

StatusOr<std::string> Elemental::emit(ir::ValueId value, const Index& given) {
  const ir::Type& type = module_.typeOf(value);
  if (!type.isTensor())
    return unimplemented("a value of type " + type.str() + " in a native kernel");
  const Index scalar;
  const Index& index = type.dims.empty() ? scalar : given;
  const auto memo_key = std::make_pair(value, key(index));
  if (auto it = memo_.find(memo_key); it != memo_.end()) return it->second;
  std::string result;
  if (auto in = input_of_.find(value); in != input_of_.end()) {
    JFT_ASSIGN_OR_RETURN(result, load(in->second, index));
  } else {
    auto def = def_.find(value);
    if (def == def_.end())
      return internalError("value %" + std::to_string(value) +
                           " is neither an input of the fusion nor defined in it");
    JFT_ASSIGN_OR_RETURN(result, emitOp(*def->second.first, def->second.second, index));
  }
  memo_.emplace(memo_key, result);
  return result;
}

StatusOr<std::string> Elemental::load(size_t input, const Index& index) {
  const ir::Type& type = module_.typeOf(fusion_.inputs[input]);
  std::string why;
  if (!isNativeType(type.element, &why))
    return unimplemented("fusion input " + type.str() + ": " + why);
  const std::string at = type.dims.empty() ? "0" : linearOf(index);
  return writer_.let(registerType(type.element),
                     fromStorage(type.element, input_params_[input] + "[" + at + "]"));
}

StatusOr<std::string> Elemental::emitOp(const ir::Op& op, size_t result,
                                        const Index& index) {
  using K = ir::OpKind;
  for (ir::ValueId v : op.results) {
    std::string why;
    if (module_.typeOf(v).isTensor() && !isNativeType(module_.typeOf(v).element, &why))
      return unimplemented(opName(op) + " producing " + why);
  }
  switch (op.kind) {
    case K::Constant:
      return emitConstant(op);
    case K::BroadcastInDim:
    case K::Broadcast:
      return emitBroadcast(op, index);
    case K::Transpose:
      return emitTranspose(op, index);
    case K::Reshape:
      return emitReshape(op, index);
    case K::Slice:
      return emitSlice(op, index);
    case K::Pad:
      return emitPad(op, index);
    case K::Concatenate:
      return emitConcatenate(op, index);
    case K::Iota:
      return emitIota(op, index);
    case K::Reverse:
      return emitReverse(op, index);
    case K::DynamicSlice:
      return emitDynamicSlice(op, index);
    case K::DynamicUpdateSlice:
      return emitDynamicUpdateSlice(op, index);
    case K::Gather:
      return emitGather(op, index);
    case K::Reduce:
      // The reduction kernel defines each reduce's results at its row; any
      // other read (a loop group, another row) has no value here.
      return unimplemented(opName(op) + " result " + std::to_string(result) +
                           " is read where the native reduction kernel does not hold it "
                           "(outside a reduction group, or at another row)");
    default:
      break;
  }
  std::string why;
  if (!isNativeElementwise(module_, op, &why))
    return unimplemented(opName(op) + " (" + module_.typeOf(op.results.at(0)).str() +
                         ") has no native emitter: " + why);
  return emitElementwiseOp(op, index);
}

StatusOr<std::string> Elemental::emitConstant(const ir::Op& op) {
  JFT_ASSIGN_OR_RETURN(const ir::DenseElements* value, common::splatValue(op));
  const ir::ElementType element = value->type.element;
  return writer_.let(registerType(element), literal(element, value->element(0)));
}

StatusOr<std::string> Elemental::emitElementwiseOp(const ir::Op& op, const Index& index) {
  std::vector<std::string> operands;
  for (ir::ValueId v : op.operands) {
    JFT_ASSIGN_OR_RETURN(std::string x, emit(v, index));
    operands.push_back(std::move(x));
  }
  return emitElementwise(writer_, module_, op, operands);
}

StatusOr<std::string> Elemental::emitBroadcast(const ir::Op& op, const Index& index) {
  const std::vector<int64_t>& in = module_.typeOf(op.operands.at(0)).dims;
  JFT_ASSIGN_OR_RETURN(const std::vector<size_t> map,
                       common::broadcastDims(op, in.size(), index.comps.size()));
  Index sub;
  sub.dims = in;
  for (size_t i = 0; i < in.size(); ++i)
    sub.comps.push_back(in[i] == 1 ? "0" : index.comps[map[i]]);
  return emit(op.operands[0], sub);
}

StatusOr<std::string> Elemental::emitTranspose(const ir::Op& op, const Index& index) {
  const std::vector<int64_t>& in = module_.typeOf(op.operands.at(0)).dims;
  JFT_ASSIGN_OR_RETURN(const std::vector<size_t> perm,
                       common::permutation(op, in.size()));
  if (index.comps.size() != in.size())
    return unimplemented(opName(op) + ": bad permutation");
  Index sub;
  sub.dims = in;
  sub.comps.resize(in.size());
  for (size_t i = 0; i < perm.size(); ++i) sub.comps[perm[i]] = index.comps[i];
  return emit(op.operands[0], sub);
}

StatusOr<std::string> Elemental::emitReshape(const ir::Op& op, const Index& index) {
  const std::vector<int64_t>& in = module_.typeOf(op.operands.at(0)).dims;
  const std::vector<int64_t>& out = index.dims;
  if (product(in) != product(out))
    return internalError(opName(op) + ": element counts differ");
  // Dims are matched in groups of equal products, so only groups that really
  // regroup elements pay for a linearise/delinearise.
  Index sub;
  sub.dims = in;
  sub.comps.assign(in.size(), "0");
  sub.linear = index.linear;
  JFT_ASSIGN_OR_RETURN(const std::vector<common::ReshapeGroup> groups,
                       common::reshapeGroups(op, out, in));
  for (const common::ReshapeGroup& g : groups) {
    if (g.in_big.empty()) continue;
    if (g.out_big.size() == 1 && g.in_big.size() == 1) {
      sub.comps[g.in_big[0]] = index.comps[g.out_big[0]];
      continue;
    }
    std::string l;
    int64_t stride = 1;
    for (size_t k = g.out_end; k-- > g.out_begin;) {
      if (out[k] == 1) continue;
      const std::string term =
          stride == 1 ? index.comps[k] : index.comps[k] + " * " + num(stride);
      l = l.empty() ? term : term + " + " + l;
      stride *= out[k];
    }
    l = ix(l);
    stride = 1;
    for (size_t k = g.in_end; k-- > g.in_begin;) {
      if (in[k] == 1) continue;
      std::string c = stride == 1 ? l : "(" + l + " / " + num(stride) + ")";
      if (k != g.in_big.front()) c += " % " + num(in[k]);
      sub.comps[k] = c == l ? l : ix(c);
      stride *= in[k];
    }
  }
  return emit(op.operands[0], sub);
}

StatusOr<std::string> Elemental::emitSlice(const ir::Op& op, const Index& index) {
  const std::vector<int64_t>& in = module_.typeOf(op.operands.at(0)).dims;
  JFT_ASSIGN_OR_RETURN(const common::SliceAttrs a, common::sliceAttrs(op, in.size()));
  Index sub;
  sub.dims = in;
  for (size_t d = 0; d < in.size(); ++d) {
    if (in[d] == 1) {
      sub.comps.push_back("0");
      continue;
    }
    std::string c = index.comps[d];
    if (a.strides[d] != 1) c = c + " * " + num(a.strides[d]);
    if (a.start[d] != 0) c = c + " + " + num(a.start[d]);
    sub.comps.push_back(c == index.comps[d] ? c : ix(c));
  }
  return emit(op.operands[0], sub);
}

StatusOr<std::string> Elemental::emitPad(const ir::Op& op, const Index& index) {
  const std::vector<int64_t>& in = module_.typeOf(op.operands.at(0)).dims;
  JFT_ASSIGN_OR_RETURN(const common::PadAttrs a, common::padAttrs(op, in.size()));
  JFT_ASSIGN_OR_RETURN(std::string pad, emit(op.operands.at(1), Index{}));
  if (product(in) == 0) return pad;
  std::vector<std::string> positions;
  std::string valid;
  for (size_t d = 0; d < in.size(); ++d) {
    const std::string j =
        a.low[d] == 0 ? index.comps[d] : ix(index.comps[d] + " - " + num(a.low[d]));
    const int64_t step = a.interior[d] + 1;
    if (a.interior[d] == 0 && a.low[d] <= 0 && a.high[d] <= 0) {
      // Only cropping: every position lies inside the operand.
      positions.push_back(j);
      continue;
    }
    std::string ok = "(" + j + " >= 0 && " + j + " < " + num((in[d] - 1) * step + 1);
    if (step > 1) ok += " && " + j + " % " + num(step) + " == 0";
    ok += ")";
    valid += (valid.empty() ? "" : " && ") + ok;
    positions.push_back(step > 1 ? ix(j + " / " + num(step)) : j);
  }
  if (valid.empty()) {
    Index sub{in, positions, ""};
    return emit(op.operands[0], sub);
  }
  const std::string inside = writer_.let("bool", valid);
  Index sub;
  sub.dims = in;
  for (size_t d = 0; d < in.size(); ++d)
    sub.comps.push_back(in[d] == 1 ? "0" : ix(inside + " ? " + positions[d] + " : 0"));
  JFT_ASSIGN_OR_RETURN(std::string v, emit(op.operands[0], sub));
  const ir::ElementType element = module_.typeOf(op.results.at(0)).element;
  return writer_.let(registerType(element), inside + " ? " + v + " : " + pad);
}

StatusOr<std::string> Elemental::emitConcatenate(const ir::Op& op, const Index& index) {
  const auto* dim_attr = ir::findAttrAs<int64_t>(op.attrs, "dimension");
  if (!dim_attr || *dim_attr < 0 || static_cast<size_t>(*dim_attr) >= index.dims.size())
    return unimplemented(opName(op) + ": missing or bad dimension");
  const auto dim = static_cast<size_t>(*dim_attr);
  const std::string& c = index.comps[dim];
  std::vector<std::string> values;
  std::vector<int64_t> ends;
  int64_t offset = 0;
  for (ir::ValueId operand : op.operands) {
    const std::vector<int64_t>& in = module_.typeOf(operand).dims;
    if (in.size() != index.dims.size())
      return unimplemented(opName(op) + ": bad operand rank");
    if (product(in) == 0) {
      offset += in[dim];
      continue;
    }
    Index sub;
    sub.dims = in;
    sub.comps = index.comps;
    // Clamped into the operand: lanes of the other operands read a valid
    // element and discard it.
    std::string local = offset == 0 ? c : "(" + c + " - " + num(offset) + ")";
    sub.comps[dim] = in[dim] == 1
                         ? "0"
                         : ix(local + " < 0 ? 0 : (" + local + " > " + num(in[dim] - 1) +
                              " ? " + num(in[dim] - 1) + " : " + local + ")");
    JFT_ASSIGN_OR_RETURN(std::string v, emit(operand, sub));
    values.push_back(v);
    offset += in[dim];
    ends.push_back(offset);
  }
  if (values.empty()) return internalError(opName(op) + ": no elements to read");
  const std::string t = registerType(module_.typeOf(op.results.at(0)).element);
  std::string result = values.back();
  for (size_t k = values.size() - 1; k-- > 0;)
    result =
        writer_.let(t, c + " < " + num(ends[k]) + " ? " + values[k] + " : " + result);
  return result;
}

StatusOr<std::string> Elemental::emitIota(const ir::Op& op, const Index& index) {
  const auto* dim = ir::findAttrAs<int64_t>(op.attrs, "iota_dimension");
  if (!dim || *dim < 0 || static_cast<size_t>(*dim) >= index.comps.size())
    return unimplemented(opName(op) + ": missing or bad iota_dimension");
  const ir::ElementType element = module_.typeOf(op.results.at(0)).element;
  const ir::ElementType from =
      index_type_ == "jft_i32" ? ir::ElementType::I32 : ir::ElementType::I64;
  return scalar::emitConvert(writer_, from, element,
                             ix(index.comps[static_cast<size_t>(*dim)]));
}

StatusOr<std::string> Elemental::emitReverse(const ir::Op& op, const Index& index) {
  const std::vector<int64_t>& in = module_.typeOf(op.operands.at(0)).dims;
  const std::vector<int64_t> dims = intsAttr(op, "dimensions");
  Index sub;
  sub.dims = in;
  sub.comps = index.comps;
  for (int64_t d : dims) {
    if (d < 0 || static_cast<size_t>(d) >= in.size())
      return unimplemented(opName(op) + ": bad dimensions");
    const auto k = static_cast<size_t>(d);
    if (in[k] != 1) sub.comps[k] = ix(num(in[k] - 1) + " - " + index.comps[k]);
  }
  return emit(op.operands[0], sub);
}

std::string Elemental::clampStart(const std::string& v, ir::ElementType element,
                                  int64_t hi) {
  // Compared as the start's own signedness, widened to 64 bits, before any
  // narrowing to the index type.
  if (ir::isUnsignedInteger(element))
    return ix("(" + index_type_ + ")((jft_u64)" + v + " > " + num(hi) + "ull ? " +
              num(hi) + "ll : (jft_i64)" + v + ")");
  return ix("(" + index_type_ + ")(" + v + " < 0 ? 0ll : ((jft_i64)" + v + " > " +
            num(hi) + "ll ? " + num(hi) + "ll : (jft_i64)" + v + "))");
}

StatusOr<std::vector<std::string>> Elemental::clampedStarts(
    const ir::Op& op, size_t first, const std::vector<int64_t>& dims,
    const std::vector<int64_t>& sizes) {
  std::vector<std::string> starts;
  for (size_t d = 0; d < dims.size(); ++d) {
    const ir::ValueId id = op.operands.at(first + d);
    const ir::ElementType element = module_.typeOf(id).element;
    JFT_RETURN_IF_ERROR(common::checkStartIndex(op, element));
    JFT_ASSIGN_OR_RETURN(std::string v, emit(id, Index{}));
    starts.push_back(clampStart(v, element, std::max<int64_t>(dims[d] - sizes[d], 0)));
  }
  return starts;
}

StatusOr<std::string> Elemental::emitDynamicSlice(const ir::Op& op, const Index& index) {
  const std::vector<int64_t>& in = module_.typeOf(op.operands.at(0)).dims;
  JFT_ASSIGN_OR_RETURN(const std::vector<int64_t> sizes,
                       common::dynamicSliceSizes(op, in.size()));
  JFT_ASSIGN_OR_RETURN(std::vector<std::string> starts, clampedStarts(op, 1, in, sizes));
  Index sub;
  sub.dims = in;
  for (size_t d = 0; d < in.size(); ++d)
    sub.comps.push_back(in[d] == 1 ? "0" : ix(index.comps[d] + " + " + starts[d]));
  return emit(op.operands[0], sub);
}

StatusOr<std::string> Elemental::emitDynamicUpdateSlice(const ir::Op& op,
                                                        const Index& index) {
  const std::vector<int64_t>& in = module_.typeOf(op.operands.at(0)).dims;
  const std::vector<int64_t>& upd = module_.typeOf(op.operands.at(1)).dims;
  if (upd.size() != in.size() || op.operands.size() != 2 + in.size())
    return unimplemented(opName(op) + ": bad operands");
  JFT_ASSIGN_OR_RETURN(std::vector<std::string> starts, clampedStarts(op, 2, in, upd));
  JFT_ASSIGN_OR_RETURN(std::string base, emit(op.operands[0], index));
  if (product(upd) == 0) return base;
  if (in.empty()) return emit(op.operands[1], Index{});  // the update replaces it
  std::vector<std::string> rel;
  std::string inside;
  for (size_t d = 0; d < in.size(); ++d) {
    rel.push_back(ix(index.comps[d] + " - " + starts[d]));
    inside += (d ? " && " : "") + rel[d] + " >= 0 && " + rel[d] + " < " + num(upd[d]);
  }
  const std::string ok = writer_.let("bool", inside);
  Index sub;
  sub.dims = upd;
  for (size_t d = 0; d < in.size(); ++d)
    sub.comps.push_back(upd[d] == 1 ? "0" : ix(ok + " ? " + rel[d] + " : 0"));
  JFT_ASSIGN_OR_RETURN(std::string update, emit(op.operands[1], sub));
  const std::string t = registerType(module_.typeOf(op.results.at(0)).element);
  return writer_.let(t, ok + " ? " + update + " : " + base);
}

StatusOr<std::vector<std::string>> Elemental::emitRegion(
    const ir::Region& region, const std::vector<std::string>& args) {
  if (region.args.size() != args.size())
    return unimplemented("a reduce region with " + std::to_string(region.args.size()) +
                         " arguments for " + std::to_string(args.size()) + " values");
  std::map<ir::ValueId, std::string> names;
  for (size_t i = 0; i < args.size(); ++i) names[region.args[i]] = args[i];
  for (const ir::Op& op : region.ops) {
    if (op.kind == ir::OpKind::Return) {
      std::vector<std::string> results;
      for (ir::ValueId v : op.operands) {
        auto it = names.find(v);
        if (it == names.end())
          return unimplemented("a reduce region returns an outer value");
        results.push_back(it->second);
      }
      return results;
    }
    if (op.results.size() != 1) return unimplemented(opName(op) + " in a reduce region");
    std::string value;
    if (op.kind == ir::OpKind::Constant) {
      JFT_ASSIGN_OR_RETURN(value, emitConstant(op));
    } else {
      std::string why;
      if (!isNativeElementwise(module_, op, &why))
        return unimplemented(opName(op) + " in a reduce region: " + why);
      std::vector<std::string> operands;
      for (ir::ValueId v : op.operands) {
        auto it = names.find(v);
        if (it != names.end()) {
          operands.push_back(it->second);
          continue;
        }
        // A scalar of the group the region captures (a comparator's constant).
        if (!module_.typeOf(v).dims.empty() || (!def_.count(v) && !input_of_.count(v)))
          return unimplemented(opName(op) + " in a reduce region reads an outer value");
        JFT_ASSIGN_OR_RETURN(std::string outer, emit(v, Index{}));
        operands.push_back(outer);
      }
      JFT_ASSIGN_OR_RETURN(value, emitElementwise(writer_, module_, op, operands));
    }
    names[op.results[0]] = value;
  }
  return unimplemented("a reduce region without a return");
}

}  // namespace jft::codegen::native
