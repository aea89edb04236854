#include "float_eval.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "integer_eval.h"
#include "ir/dense_elements.h"

namespace jft::passes::testing {
namespace {

using ir::ElementType;
using ir::OpKind;
using ir::Type;
using ir::ValueId;
using Value = std::complex<double>;

template <typename T>
T load(const uint8_t* bytes) {
  T v;
  std::memcpy(&v, bytes, sizeof v);
  return v;
}

Value floatConstantElement(const ir::DenseElements& d, int64_t i) {
  const uint8_t* b = d.element(i).data();
  switch (d.type.element) {
    case ElementType::F32:
      return load<float>(b);
    case ElementType::F64:
      return load<double>(b);
    case ElementType::C64:
      return {load<float>(b), load<float>(b + 4)};
    case ElementType::C128:
      return {load<double>(b), load<double>(b + 8)};
    case ElementType::PRED:
      return b[0] != 0 ? 1.0 : 0.0;
    case ElementType::I32:
      return static_cast<double>(load<int32_t>(b));
    case ElementType::I64:
      return static_cast<double>(load<int64_t>(b));
    default:
      ADD_FAILURE() << "unexpected constant type " << ir::elementTypeName(d.type.element);
      return 0;
  }
}

// Ordered directions compare real values (the only ones that have an
// order); EQ and NE compare both parts.
bool compare(ir::ComparisonDirection direction, Value a, Value b) {
  switch (direction) {
    case ir::ComparisonDirection::EQ:
      return a == b;
    case ir::ComparisonDirection::NE:
      return a != b;
    case ir::ComparisonDirection::LT:
      return a.real() < b.real();
    case ir::ComparisonDirection::LE:
      return a.real() <= b.real();
    case ir::ComparisonDirection::GT:
      return a.real() > b.real();
    case ir::ComparisonDirection::GE:
      return a.real() >= b.real();
  }
  return false;
}

// dot_general by its definition: result index = (batch, lhs free, rhs
// free), summed over the contracting dims.
FloatTensor dotGeneral(const ir::Op& op, const FloatTensor& lhs, const FloatTensor& rhs,
                       const std::vector<int64_t>& out_dims) {
  const auto& n =
      ir::findAttrAs<ir::DotDimensionNumbers>(op.attrs, "dot_dimension_numbers");
  auto free = [](size_t rank, const std::vector<int64_t>& batch,
                 const std::vector<int64_t>& contract) {
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < static_cast<int64_t>(rank); ++d)
      if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
          std::find(contract.begin(), contract.end(), d) == contract.end())
        dims.push_back(d);
    return dims;
  };
  const auto lhs_free =
      free(lhs.dims.size(), n->lhs_batching_dims, n->lhs_contracting_dims);
  const auto rhs_free =
      free(rhs.dims.size(), n->rhs_batching_dims, n->rhs_contracting_dims);
  std::vector<int64_t> k_dims;
  for (int64_t d : n->lhs_contracting_dims) k_dims.push_back(lhs.dims[d]);
  FloatTensor r{out_dims, std::vector<Value>(static_cast<size_t>(count(out_dims)))};
  for (int64_t at = 0; at < count(out_dims); ++at) {
    const std::vector<int64_t> out = unflatten(at, out_dims);
    std::vector<int64_t> li(lhs.dims.size()), ri(rhs.dims.size());
    size_t o = 0;
    for (size_t i = 0; i < n->lhs_batching_dims.size(); ++i, ++o) {
      li[n->lhs_batching_dims[i]] = out[o];
      ri[n->rhs_batching_dims[i]] = out[o];
    }
    for (int64_t d : lhs_free) li[d] = out[o++];
    for (int64_t d : rhs_free) ri[d] = out[o++];
    Value sum = 0;
    for (int64_t kk = 0; kk < count(k_dims); ++kk) {
      const std::vector<int64_t> k = unflatten(kk, k_dims);
      for (size_t i = 0; i < k.size(); ++i) {
        li[n->lhs_contracting_dims[i]] = k[i];
        ri[n->rhs_contracting_dims[i]] = k[i];
      }
      sum += lhs.data[flatten(li, lhs.dims)] * rhs.data[flatten(ri, rhs.dims)];
    }
    r.data[at] = sum;
  }
  return r;
}

}  // namespace

std::vector<FloatTensor> evaluateFloat(const ir::Module& m,
                                       const std::vector<FloatTensor>& args,
                                       const char* name) {
  const ir::Function& f = *m.findFunction(name);
  std::map<ValueId, FloatTensor> env;
  for (size_t i = 0; i < args.size(); ++i) env[f.body.args[i]] = args[i];
  for (const ir::Op& op : f.body.ops) {
    if (op.kind == OpKind::Return) {
      std::vector<FloatTensor> out;
      for (ValueId v : op.operands) out.push_back(env.at(v));
      return out;
    }
    const Type& type = m.typeOf(op.results[0]);
    FloatTensor r{type.dims, std::vector<Value>(static_cast<size_t>(count(type.dims)))};
    auto in = [&](size_t i) -> const FloatTensor& { return env.at(op.operands[i]); };
    auto each = [&](auto&& fn) {
      for (size_t i = 0; i < r.data.size(); ++i) r.data[i] = fn(i);
    };
    switch (op.kind) {
      case OpKind::Constant: {
        const auto* d = ir::findAttrAs<ir::DenseElements>(op.attrs, "value");
        each([&](size_t i) { return floatConstantElement(*d, static_cast<int64_t>(i)); });
        break;
      }
      case OpKind::Reshape:
        r.data = in(0).data;
        break;
      case OpKind::BroadcastInDim: {
        const auto* map =
            ir::findAttrAs<std::vector<int64_t>>(op.attrs, "broadcast_dimensions");
        const FloatTensor& x = in(0);
        each([&](size_t i) {
          const std::vector<int64_t> out = unflatten(static_cast<int64_t>(i), r.dims);
          std::vector<int64_t> index(x.dims.size());
          for (size_t d = 0; d < x.dims.size(); ++d)
            index[d] = x.dims[d] == 1 ? 0 : out[(*map)[d]];
          return x.data[flatten(index, x.dims)];
        });
        break;
      }
      case OpKind::Iota: {
        const int64_t dim = *ir::findAttrAs<int64_t>(op.attrs, "iota_dimension");
        each([&](size_t i) {
          return Value(
              static_cast<double>(unflatten(static_cast<int64_t>(i), r.dims)[dim]));
        });
        break;
      }
      case OpKind::DotGeneral:
        r = dotGeneral(op, in(0), in(1), type.dims);
        break;
      case OpKind::Add:
        each([&](size_t i) { return in(0).data[i] + in(1).data[i]; });
        break;
      case OpKind::Multiply:
        each([&](size_t i) { return in(0).data[i] * in(1).data[i]; });
        break;
      case OpKind::Compare: {
        const auto direction =
            *ir::findAttrAs<ir::ComparisonDirection>(op.attrs, "comparison_direction");
        each([&](size_t i) {
          return Value(compare(direction, in(0).data[i], in(1).data[i]) ? 1.0 : 0.0);
        });
        break;
      }
      case OpKind::Select: {
        const bool scalar = in(0).dims.empty();
        each([&](size_t i) {
          const Value p = in(0).data[scalar ? 0 : i];
          return p != 0.0 ? in(1).data[i] : in(2).data[i];
        });
        break;
      }
      default:
        ADD_FAILURE() << "the float evaluator has no " << ir::opKindName(op.kind);
        return {};
    }
    env[op.results[0]] = std::move(r);
  }
  ADD_FAILURE() << "no return";
  return {};
}

}  // namespace jft::passes::testing
