#include "integer_eval.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "ir/dense_elements.h"

namespace jft::passes::testing {

using ir::ElementType;
using ir::OpKind;
using ir::Type;
using ir::ValueId;

int64_t wrap(int64_t v, ElementType t) {
  const int bits = t == ElementType::PRED ? 1 : ir::bitWidth(t);
  if (bits >= 64) return v;
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  uint64_t u = static_cast<uint64_t>(v) & mask;
  if (ir::isSignedInteger(t) && (u >> (bits - 1)) != 0) u |= ~mask;
  return static_cast<int64_t>(u);
}

int64_t count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

std::vector<int64_t> unflatten(int64_t flat, const std::vector<int64_t>& dims) {
  std::vector<int64_t> index(dims.size());
  for (size_t i = dims.size(); i-- > 0;) {
    index[i] = flat % dims[i];
    flat /= dims[i];
  }
  return index;
}

int64_t flatten(const std::vector<int64_t>& index, const std::vector<int64_t>& dims) {
  int64_t flat = 0;
  for (size_t i = 0; i < dims.size(); ++i) flat = flat * dims[i] + index[i];
  return flat;
}

namespace {

// The element's bits, zero-extended (what unsigned ops and shifts see).
uint64_t bitsOf(int64_t v, ElementType t) {
  const int bits = t == ElementType::PRED ? 1 : ir::bitWidth(t);
  const uint64_t u = static_cast<uint64_t>(v);
  return bits >= 64 ? u : u & ((uint64_t{1} << bits) - 1);
}

int64_t integerConstantElement(const ir::DenseElements& d, int64_t i) {
  const auto bytes = d.element(i);
  uint64_t u = 0;
  for (size_t b = 0; b < bytes.size(); ++b) u |= uint64_t{bytes[b]} << (8 * b);
  return wrap(static_cast<int64_t>(u), d.type.element);
}

bool compare(ir::ComparisonDirection direction, int64_t a, int64_t b, ElementType t) {
  const bool is_unsigned = !ir::isSignedInteger(t);
  auto less = [&](int64_t x, int64_t y) {
    return is_unsigned ? bitsOf(x, t) < bitsOf(y, t) : x < y;
  };
  switch (direction) {
    case ir::ComparisonDirection::EQ:
      return a == b;
    case ir::ComparisonDirection::NE:
      return a != b;
    case ir::ComparisonDirection::LT:
      return less(a, b);
    case ir::ComparisonDirection::LE:
      return !less(b, a);
    case ir::ComparisonDirection::GT:
      return less(b, a);
    case ir::ComparisonDirection::GE:
      return !less(a, b);
  }
  return false;
}

int64_t binary(OpKind kind, int64_t a, int64_t b, ElementType t) {
  const int bits = ir::bitWidth(t);
  const uint64_t ua = bitsOf(a, t), ub = bitsOf(b, t);
  switch (kind) {
    case OpKind::Add:
      return wrap(static_cast<int64_t>(ua + ub), t);
    case OpKind::Multiply:
      return wrap(static_cast<int64_t>(ua * ub), t);
    case OpKind::And:
      return wrap(static_cast<int64_t>(ua & ub), t);
    case OpKind::Or:
      return wrap(static_cast<int64_t>(ua | ub), t);
    case OpKind::Xor:
      return wrap(static_cast<int64_t>(ua ^ ub), t);
    case OpKind::ShiftLeft:  // shifts by the width or more give 0
      return ub >= static_cast<uint64_t>(bits) ? 0
                                               : wrap(static_cast<int64_t>(ua << ub), t);
    case OpKind::ShiftRightLogical:
      return ub >= static_cast<uint64_t>(bits) ? 0
                                               : wrap(static_cast<int64_t>(ua >> ub), t);
    default:
      ADD_FAILURE() << "unexpected binary op " << ir::opKindName(kind);
      return 0;
  }
}

}  // namespace

std::vector<Tensor> evaluate(const ir::Module& m, const std::vector<Tensor>& args) {
  const ir::Function& f = m.functions[0];
  std::map<ValueId, Tensor> env;
  for (size_t i = 0; i < args.size(); ++i) env[f.body.args[i]] = args[i];
  for (const ir::Op& op : f.body.ops) {
    if (op.kind == OpKind::Return) {
      std::vector<Tensor> out;
      for (ValueId v : op.operands) out.push_back(env.at(v));
      return out;
    }
    const Type& type = m.typeOf(op.results[0]);
    Tensor r{type.dims, std::vector<int64_t>(static_cast<size_t>(count(type.dims)), 0)};
    auto in = [&](size_t i) -> const Tensor& { return env.at(op.operands[i]); };
    auto inType = [&](size_t i) { return m.typeOf(op.operands[i]).element; };
    auto each = [&](auto&& fn) {
      for (size_t i = 0; i < r.data.size(); ++i) r.data[i] = fn(i);
    };
    switch (op.kind) {
      case OpKind::Constant: {
        const auto& value = *ir::findAttrAs<ir::DenseElements>(op.attrs, "value");
        each([&](size_t i) {
          return integerConstantElement(value, static_cast<int64_t>(i));
        });
        break;
      }
      case OpKind::Convert:
        each([&](size_t i) { return wrap(in(0).data[i], type.element); });
        break;
      case OpKind::BitcastConvert:
        EXPECT_EQ(ir::bitWidth(inType(0)), ir::bitWidth(type.element));
        each([&](size_t i) {
          return wrap(static_cast<int64_t>(bitsOf(in(0).data[i], inType(0))),
                      type.element);
        });
        break;
      case OpKind::Reshape:
        r.data = in(0).data;
        break;
      case OpKind::Add:
      case OpKind::Multiply:
      case OpKind::And:
      case OpKind::Or:
      case OpKind::Xor:
      case OpKind::ShiftLeft:
      case OpKind::ShiftRightLogical:
        each([&](size_t i) {
          return binary(op.kind, in(0).data[i], in(1).data[i], type.element);
        });
        break;
      case OpKind::Compare: {
        const auto direction =
            *ir::findAttrAs<ir::ComparisonDirection>(op.attrs, "comparison_direction");
        each([&](size_t i) -> int64_t {
          return compare(direction, in(0).data[i], in(1).data[i], inType(0)) ? 1 : 0;
        });
        break;
      }
      case OpKind::Select:
        each([&](size_t i) {
          const size_t p = in(0).data.size() == 1 ? 0 : i;
          return in(0).data[p] != 0 ? in(1).data[i] : in(2).data[i];
        });
        break;
      case OpKind::Iota: {
        const auto dim =
            static_cast<size_t>(*ir::findAttrAs<int64_t>(op.attrs, "iota_dimension"));
        each([&](size_t i) {
          return wrap(unflatten(static_cast<int64_t>(i), r.dims)[dim], type.element);
        });
        break;
      }
      case OpKind::Slice: {
        const auto& start =
            *ir::findAttrAs<std::vector<int64_t>>(op.attrs, "start_indices");
        const auto& strides = *ir::findAttrAs<std::vector<int64_t>>(op.attrs, "strides");
        each([&](size_t i) {
          std::vector<int64_t> src = unflatten(static_cast<int64_t>(i), r.dims);
          for (size_t d = 0; d < src.size(); ++d) src[d] = start[d] + src[d] * strides[d];
          return in(0).data[static_cast<size_t>(flatten(src, in(0).dims))];
        });
        break;
      }
      case OpKind::Concatenate: {
        const auto dim =
            static_cast<size_t>(*ir::findAttrAs<int64_t>(op.attrs, "dimension"));
        each([&](size_t i) {
          std::vector<int64_t> at = unflatten(static_cast<int64_t>(i), r.dims);
          size_t part = 0;
          while (at[dim] >= in(part).dims[dim]) at[dim] -= in(part++).dims[dim];
          return in(part).data[static_cast<size_t>(flatten(at, in(part).dims))];
        });
        break;
      }
      case OpKind::Transpose: {
        const auto& perm = *ir::findAttrAs<std::vector<int64_t>>(op.attrs, "permutation");
        each([&](size_t i) {
          const std::vector<int64_t> out = unflatten(static_cast<int64_t>(i), r.dims);
          std::vector<int64_t> src(out.size());
          for (size_t d = 0; d < perm.size(); ++d)
            src[static_cast<size_t>(perm[d])] = out[d];
          return in(0).data[static_cast<size_t>(flatten(src, in(0).dims))];
        });
        break;
      }
      case OpKind::BroadcastInDim: {
        const auto& bd =
            *ir::findAttrAs<std::vector<int64_t>>(op.attrs, "broadcast_dimensions");
        each([&](size_t i) {
          const std::vector<int64_t> out = unflatten(static_cast<int64_t>(i), r.dims);
          std::vector<int64_t> src(bd.size());
          for (size_t d = 0; d < bd.size(); ++d)
            src[d] = in(0).dims[d] == 1 ? 0 : out[static_cast<size_t>(bd[d])];
          return in(0).data[static_cast<size_t>(flatten(src, in(0).dims))];
        });
        break;
      }
      case OpKind::Reduce: {
        const OpKind combine = op.regions.at(0).ops.at(0).kind;
        EXPECT_TRUE(combine == OpKind::Add || combine == OpKind::Or);
        EXPECT_EQ(in(1).data, std::vector<int64_t>{0});
        const auto& rd = *ir::findAttrAs<std::vector<int64_t>>(op.attrs, "dimensions");
        const Tensor& x = in(0);
        for (int64_t i = 0; i < count(x.dims); ++i) {
          const std::vector<int64_t> idx = unflatten(i, x.dims);
          std::vector<int64_t> kept;
          for (size_t d = 0; d < idx.size(); ++d)
            if (std::find(rd.begin(), rd.end(), static_cast<int64_t>(d)) == rd.end())
              kept.push_back(idx[d]);
          int64_t& slot = r.data[static_cast<size_t>(flatten(kept, r.dims))];
          const int64_t v = x.data[static_cast<size_t>(i)];
          slot = combine == OpKind::Or ? (slot | v) : wrap(slot + v, type.element);
        }
        break;
      }
      default:
        ADD_FAILURE() << "unexpected op " << ir::opKindName(op.kind);
    }
    env[op.results[0]] = std::move(r);
  }
  return {};
}

}  // namespace jft::passes::testing
