// A host evaluator for what the library route builds: the movement and
// integer ops of the scratch functions (constant, iota, broadcast_in_dim,
// add, multiply, concatenate, pad, gather, reshape, transpose), each by its
// StableHLO spec definition, and a GemmDesc product by runtime/gemm.h's
// definition. Values are doubles (integer-valued test data stays exact).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "fusion/fusion.h"
#include "ir/module.h"
#include "runtime/gemm.h"

namespace jft::compiler::testing {

struct HostTensor {
  std::vector<int64_t> dims;
  std::vector<double> data;  // row-major
};

inline int64_t count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// Row-major multi-index of linear position `at`.
inline std::vector<int64_t> unravel(int64_t at, const std::vector<int64_t>& dims) {
  std::vector<int64_t> index(dims.size());
  for (size_t d = dims.size(); d-- > 0;) {
    index[d] = at % dims[d];
    at /= dims[d];
  }
  return index;
}

inline int64_t ravel(const std::vector<int64_t>& index,
                     const std::vector<int64_t>& dims) {
  int64_t at = 0;
  for (size_t d = 0; d < dims.size(); ++d) at = at * dims[d] + index[d];
  return at;
}

inline std::vector<int64_t> hostInts(const ir::Op& op, const char* name) {
  const auto* v = ir::findAttrAs<std::vector<int64_t>>(op.attrs, name);
  if (v == nullptr) throw std::runtime_error(std::string("missing attribute ") + name);
  return *v;
}

inline int64_t hostInt(const ir::Op& op, const char* name) {
  const auto* v = ir::findAttrAs<int64_t>(op.attrs, name);
  if (v == nullptr) throw std::runtime_error(std::string("missing attribute ") + name);
  return *v;
}

// A scalar constant's one element (f32, f64, i32, i64; zero bits for others).
inline double scalarOf(const ir::DenseElements& d) {
  using ir::ElementType;
  switch (d.type.element) {
    case ElementType::F32: {
      float f;
      std::memcpy(&f, d.bytes.data(), 4);
      return f;
    }
    case ElementType::F64: {
      double f;
      std::memcpy(&f, d.bytes.data(), 8);
      return f;
    }
    case ElementType::I32: {
      int32_t i;
      std::memcpy(&i, d.bytes.data(), 4);
      return i;
    }
    case ElementType::I64: {
      int64_t i;
      std::memcpy(&i, d.bytes.data(), 8);
      return static_cast<double>(i);
    }
    default:
      for (uint8_t b : d.bytes)
        if (b != 0) throw std::runtime_error("constant of an unmodelled type");
      return 0;
  }
}

class HostEval {
 public:
  explicit HostEval(const ir::Module& module) : module_(module) {}
  std::map<ir::ValueId, HostTensor> values;

  // Runs a scratch function's body on `values` (its args must be there).
  void run(const ir::Function& f) {
    for (const ir::Op& op : f.body.ops) {
      if (op.kind == ir::OpKind::Return) return;
      values[op.results.at(0)] = eval(op);
    }
  }

  // Runs ops `ops` (indices into `region`, in program order) on `values`:
  // one fusion's ops, its inputs already there.
  void runOps(const ir::Region& region, const std::vector<size_t>& ops) {
    for (size_t i : ops) values[region.ops.at(i).results.at(0)] = eval(region.ops.at(i));
  }

  // D = A x B per `g`, reading and writing the flat data of these values.
  void gemm(const runtime::GemmDesc& g, ir::ValueId a, ir::ValueId b, ir::ValueId d) {
    const std::vector<double>& A = values.at(a).data;
    const std::vector<double>& B = values.at(b).data;
    HostTensor& D = values[d];
    D.dims = module_.typeOf(d).dims;
    D.data.resize(static_cast<size_t>(count(D.dims)));
    auto at = [](const std::vector<double>& buf, const runtime::GemmOperand& o,
                 int64_t batch, int64_t row, int64_t col) {
      const int64_t i =
          batch * o.batch_stride + (o.transpose ? col * o.ld + row : row * o.ld + col);
      return buf.at(static_cast<size_t>(i));
    };
    for (int64_t p = 0; p < g.batch; ++p)
      for (int64_t i = 0; i < g.m; ++i)
        for (int64_t j = 0; j < g.n; ++j) {
          double sum = 0;
          for (int64_t l = 0; l < g.k; ++l)
            sum += at(A, g.a, p, i, l) * at(B, g.b, p, l, j);
          D.data.at(static_cast<size_t>(p * g.d_batch_stride + i * g.d_ld + j)) = sum;
        }
  }

 private:
  const HostTensor& in(const ir::Op& op, size_t i) {
    return values.at(op.operands.at(i));
  }

  HostTensor eval(const ir::Op& op) {
    using K = ir::OpKind;
    HostTensor r;
    r.dims = module_.typeOf(op.results.at(0)).dims;
    r.data.resize(static_cast<size_t>(count(r.dims)));
    const int64_t n = count(r.dims);
    for (int64_t at = 0; at < n; ++at) {
      const std::vector<int64_t> idx = unravel(at, r.dims);
      double& out = r.data[static_cast<size_t>(at)];
      switch (op.kind) {
        case K::Constant:
          out = scalarOf(*ir::findAttrAs<ir::DenseElements>(op.attrs, "value"));
          break;
        case K::Iota:
          out = static_cast<double>(
              idx.at(static_cast<size_t>(hostInt(op, "iota_dimension"))));
          break;
        case K::BroadcastInDim: {
          const HostTensor& x = in(op, 0);
          const std::vector<int64_t> map = hostInts(op, "broadcast_dimensions");
          std::vector<int64_t> j(x.dims.size());
          for (size_t d = 0; d < j.size(); ++d)
            j[d] = x.dims[d] == 1 ? 0 : idx[static_cast<size_t>(map[d])];
          out = x.data[static_cast<size_t>(ravel(j, x.dims))];
          break;
        }
        case K::Add:
          out = in(op, 0).data[static_cast<size_t>(at)] +
                in(op, 1).data[static_cast<size_t>(at)];
          break;
        case K::Multiply:
          out = in(op, 0).data[static_cast<size_t>(at)] *
                in(op, 1).data[static_cast<size_t>(at)];
          break;
        case K::Reshape:
          out = in(op, 0).data[static_cast<size_t>(at)];
          break;
        case K::Transpose: {
          const HostTensor& x = in(op, 0);
          const std::vector<int64_t> perm = hostInts(op, "permutation");
          std::vector<int64_t> j(x.dims.size());
          for (size_t d = 0; d < perm.size(); ++d)
            j[static_cast<size_t>(perm[d])] = idx[d];
          out = x.data[static_cast<size_t>(ravel(j, x.dims))];
          break;
        }
        case K::Concatenate: {
          const size_t dim = static_cast<size_t>(hostInt(op, "dimension"));
          std::vector<int64_t> j = idx;
          for (size_t o = 0; o < op.operands.size(); ++o) {
            const HostTensor& x = in(op, o);
            if (j[dim] < x.dims[dim]) {
              out = x.data[static_cast<size_t>(ravel(j, x.dims))];
              break;
            }
            j[dim] -= x.dims[dim];
          }
          break;
        }
        case K::Pad:
          out = pad(op, idx);
          break;
        case K::Gather:
          out = gather(op, idx);
          break;
        default:
          throw std::runtime_error("host evaluator: no " +
                                   std::string(ir::opKindName(op.kind)));
      }
    }
    return r;
  }

  double pad(const ir::Op& op, const std::vector<int64_t>& idx) {
    const HostTensor& x = in(op, 0);
    const std::vector<int64_t> lo = hostInts(op, "edge_padding_low");
    const std::vector<int64_t> interior = hostInts(op, "interior_padding");
    std::vector<int64_t> j(idx.size());
    for (size_t d = 0; d < idx.size(); ++d) {
      const int64_t p = idx[d] - lo[d];
      const int64_t step = interior[d] + 1;
      if (p < 0 || p % step != 0 || p / step >= x.dims[d]) return in(op, 1).data.at(0);
      j[d] = p / step;
    }
    return x.data[static_cast<size_t>(ravel(j, x.dims))];
  }

  // The spec's gather without batching dims.
  double gather(const ir::Op& op, const std::vector<int64_t>& idx) {
    const HostTensor& x = in(op, 0);
    const HostTensor& indices = in(op, 1);
    const auto& dn =
        *ir::findAttrAs<ir::GatherDimensionNumbers>(op.attrs, "dimension_numbers");
    const std::vector<int64_t> sizes = hostInts(op, "slice_sizes");
    auto isOffset = [&](int64_t d) {
      for (int64_t o : dn.offset_dims)
        if (o == d) return true;
      return false;
    };
    std::vector<int64_t> batch, offset;
    for (size_t d = 0; d < idx.size(); ++d)
      (isOffset(static_cast<int64_t>(d)) ? offset : batch).push_back(idx[d]);
    std::vector<int64_t> start(x.dims.size(), 0);
    for (size_t k = 0; k < dn.start_index_map.size(); ++k) {
      std::vector<int64_t> j;
      size_t next = 0;
      for (int64_t d = 0; d < static_cast<int64_t>(indices.dims.size()); ++d)
        j.push_back(d == dn.index_vector_dim ? static_cast<int64_t>(k)
                                             : batch.at(next++));
      const size_t od = static_cast<size_t>(dn.start_index_map[k]);
      int64_t s =
          static_cast<int64_t>(indices.data[static_cast<size_t>(ravel(j, indices.dims))]);
      s = std::max<int64_t>(0, std::min(s, x.dims[od] - sizes[od]));
      start[od] = s;
    }
    std::vector<int64_t> full = start;
    size_t next = 0;
    for (size_t d = 0; d < x.dims.size(); ++d) {
      bool collapsed = false;
      for (int64_t c : dn.collapsed_slice_dims) collapsed |= c == static_cast<int64_t>(d);
      if (!collapsed) full[d] += offset.at(next++);
    }
    return x.data[static_cast<size_t>(ravel(full, x.dims))];
  }

  const ir::Module& module_;
};

// `group` of `function` evaluated on the host as its kernel would run it on
// f32 buffers: its inputs read from buffers[in_at], buffers[in_at + 1], ...,
// its outputs written to buffers[out_at], ... (both advanced past them).
inline void runGroupOnBuffers(const ir::Module& module, const ir::Function& function,
                              const fusion::Fusion& group,
                              const std::vector<uint64_t>& buffers, size_t& in_at,
                              size_t& out_at) {
  HostEval eval(module);
  for (ir::ValueId in : group.inputs) {
    HostTensor& t = eval.values[in];
    t.dims = module.typeOf(in).dims;
    const float* data = reinterpret_cast<const float*>(buffers.at(in_at++));
    t.data.assign(data, data + count(t.dims));
  }
  eval.runOps(function.body, group.ops);
  for (ir::ValueId out : group.outputs) {
    float* data = reinterpret_cast<float*>(buffers.at(out_at++));
    const std::vector<double>& values = eval.values.at(out).data;
    for (size_t e = 0; e < values.size(); ++e) data[e] = static_cast<float>(values[e]);
  }
}

}  // namespace jft::compiler::testing
