// Running a parsed kernel: control flow, memory, shape ops and tt.reduce;
// elementwise ops are in interp_arith.cc.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "interp_internal.h"
#include "ttir_interp.h"

namespace jft::codegen::ttir::testing {
namespace interp {
namespace {

Status opError(const Op& op, const std::string& what) {
  return invalidArgument("TTIR line " + std::to_string(op.line) + ": " + what + ": " +
                         op.text);
}

std::vector<int64_t> stridesOf(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d)
    s[d] = s[d + 1] * shape[d + 1];
  return s;
}

// Copies element `from` of `src` to element `to` of `dst` (same element kind).
void copyElement(const Tensor& src, int64_t from, Tensor& dst, int64_t to) {
  if (isFloat(src.type.elem))
    dst.floats[to] = src.floats[from];
  else
    dst.ints[to] = src.ints[from];
}

class Machine {
 public:
  Machine(const Function& f, std::array<uint32_t, 3> grid,
          const std::vector<InterpBuffer>& buffers, const InterpOptions& options)
      : f_(f), grid_(grid), buffers_(buffers), rng_(options.junk_seed) {}

  Status run() {
    if (f_.params.size() != buffers_.size())
      return invalidArgument("the kernel takes " + std::to_string(f_.params.size()) +
                             " parameters, " + std::to_string(buffers_.size()) +
                             " buffers given");
    for (const Type& t : f_.param_types)
      if (t.elem != Elem::kPtr || t.tensor)
        return unimplemented("a non-pointer kernel parameter");
    for (uint32_t z = 0; z < grid_[2]; ++z)
      for (uint32_t y = 0; y < grid_[1]; ++y)
        for (uint32_t x = 0; x < grid_[0]; ++x) {
          pid_ = {x, y, z};
          slots_.assign(f_.slots, Tensor{});
          for (size_t i = 0; i < f_.params.size(); ++i) {
            Tensor p = makeTensor(f_.param_types[i]);
            p.ints[0] =
                static_cast<int64_t>(reinterpret_cast<uintptr_t>(buffers_[i].data));
            slots_[f_.params[i]] = std::move(p);
          }
          std::vector<Tensor> ignored;
          JFT_RETURN_IF_ERROR(region(f_.body, ignored));
        }
    return Status::ok();
  }

 private:
  // Runs the ops of `r`; its terminator's operands are copied to `yielded`.
  Status region(const Region& r, std::vector<Tensor>& yielded) {
    for (const Op& op : r.ops) {
      if (op.name == "scf.yield" || op.name == "tt.reduce.return" ||
          op.name == "tt.return") {
        yielded.clear();
        for (int s : op.operands) yielded.push_back(slots_[s]);
        return Status::ok();
      }
      JFT_RETURN_IF_ERROR(run(op));
    }
    return Status::ok();
  }

  const Tensor& in(const Op& op, size_t i) const { return slots_[op.operands[i]]; }
  void set(const Op& op, size_t i, Tensor t) { slots_[op.results[i]] = std::move(t); }

  Status run(const Op& op) {
    const std::string& n = op.name;
    if (n == "gpu.barrier") return Status::ok();  // one program runs at a time
    if (n == "arith.constant") {
      set(op, 0, *op.constant);
      return Status::ok();
    }
    if (n == "tt.get_program_id" || n == "tt.get_num_programs") {
      const int axis = op.attr == "x" ? 0 : op.attr == "y" ? 1 : op.attr == "z" ? 2 : -1;
      if (axis < 0) return opError(op, "axis");
      Tensor t = makeTensor(op.types[0]);
      t.ints[0] = n == "tt.get_program_id" ? pid_[axis] : grid_[axis];
      set(op, 0, std::move(t));
      return Status::ok();
    }
    if (n == "tt.make_range") {
      Tensor t = makeTensor(op.types[0]);
      if (op.ints[1] - op.ints[0] != t.size()) return opError(op, "range length");
      for (int64_t i = 0; i < t.size(); ++i) t.ints[i] = op.ints[0] + i;
      set(op, 0, std::move(t));
      return Status::ok();
    }
    if (n == "tt.splat") return splat(op);
    if (n == "tt.broadcast") return broadcast(op);
    if (n == "tt.expand_dims" || n == "tt.reshape") {
      Tensor t = in(op, 0);
      if (t.size() != op.types[0].size()) return opError(op, "element count changes");
      t.type = op.types[0];
      set(op, 0, std::move(t));
      return Status::ok();
    }
    if (n == "tt.trans") return trans(op);
    if (n == "tt.split") return split(op);
    if (n == "tt.join") return join(op);
    if (n == "tt.addptr") return addptr(op);
    if (n == "tt.load") return load(op);
    if (n == "tt.store") return store(op);
    if (n == "scf.for") return scfFor(op);
    if (n == "scf.if") return scfIf(op);
    if (n == "tt.reduce") return reduce(op);
    if (n == "tt.dot") return dot(op);
    std::vector<const Tensor*> args;
    for (size_t i = 0; i < op.operands.size(); ++i) args.push_back(&in(op, i));
    Tensor out;
    JFT_ASSIGN_OR_RETURN(bool done, runElementwise(op, args, out));
    if (!done)
      return unimplemented("TTIR line " + std::to_string(op.line) +
                           ": the interpreter does not support " + n + ": " + op.text);
    set(op, 0, std::move(out));
    return Status::ok();
  }

  Status splat(const Op& op) {
    const Tensor& x = in(op, 0);
    if (x.size() != 1 || x.type.tensor) return opError(op, "splat of a non-scalar");
    Tensor t = makeTensor(op.types[0]);
    if (isFloat(t.type.elem))
      std::fill(t.floats.begin(), t.floats.end(), x.floats[0]);
    else
      std::fill(t.ints.begin(), t.ints.end(), x.ints[0]);
    set(op, 0, std::move(t));
    return Status::ok();
  }

  Status broadcast(const Op& op) {
    const Tensor& x = in(op, 0);
    const Type& rt = op.types[0];
    if (x.type.shape.size() != rt.shape.size()) return opError(op, "rank changes");
    for (size_t d = 0; d < rt.shape.size(); ++d)
      if (x.type.shape[d] != rt.shape[d] && x.type.shape[d] != 1)
        return opError(op, "dimension neither kept nor 1");
    Tensor t = makeTensor(rt);
    const auto src = stridesOf(x.type.shape), dst = stridesOf(rt.shape);
    for (int64_t i = 0; i < t.size(); ++i) {
      int64_t from = 0;
      for (size_t d = 0; d < rt.shape.size(); ++d)
        if (x.type.shape[d] != 1) from += (i / dst[d] % rt.shape[d]) * src[d];
      copyElement(x, from, t, i);
    }
    set(op, 0, std::move(t));
    return Status::ok();
  }

  // Result dim d is operand dim order[d].
  Status trans(const Op& op) {
    const Tensor& x = in(op, 0);
    const Type& rt = op.types[0];
    const size_t rank = x.type.shape.size();
    if (op.ints.size() != rank || rt.shape.size() != rank)
      return opError(op, "order rank");
    Tensor t = makeTensor(rt);
    const auto src = stridesOf(x.type.shape), dst = stridesOf(rt.shape);
    for (int64_t i = 0; i < t.size(); ++i) {
      int64_t from = 0;
      for (size_t d = 0; d < rank; ++d)
        from += (i / dst[d] % rt.shape[d]) * src[op.ints[d]];
      copyElement(x, from, t, i);
    }
    set(op, 0, std::move(t));
    return Status::ok();
  }

  // [..., 2] -> the halves at index 0 and 1 of the last dim.
  Status split(const Op& op) {
    const Tensor& x = in(op, 0);
    if (x.type.shape.empty() || x.type.shape.back() != 2)
      return opError(op, "last dim not 2");
    for (int half = 0; half < 2; ++half) {
      Tensor t = makeTensor(op.types[half]);
      if (t.size() * 2 != x.size()) return opError(op, "result size");
      for (int64_t i = 0; i < t.size(); ++i) copyElement(x, 2 * i + half, t, i);
      set(op, half, std::move(t));
    }
    return Status::ok();
  }

  Status join(const Op& op) {
    const Tensor &a = in(op, 0), &b = in(op, 1);
    Tensor t = makeTensor(op.types[0]);
    if (a.size() * 2 != t.size() || b.size() != a.size()) return opError(op, "sizes");
    for (int64_t i = 0; i < a.size(); ++i) {
      copyElement(a, i, t, 2 * i);
      copyElement(b, i, t, 2 * i + 1);
    }
    set(op, 0, std::move(t));
    return Status::ok();
  }

  Status addptr(const Op& op) {
    const Tensor &p = in(op, 0), &o = in(op, 1);
    if (p.type.shape != o.type.shape) return opError(op, "shapes differ");
    Tensor t = p;
    t.type = op.types[0];
    const int64_t bytes = bytesOf(t.type.pointee);
    for (int64_t i = 0; i < t.size(); ++i) t.ints[i] += o.ints[i] * bytes;
    set(op, 0, std::move(t));
    return Status::ok();
  }

  // The host address of `bytes` bytes at `address`, inside one buffer, aligned.
  StatusOr<uint8_t*> memory(const Op& op, int64_t address, int bytes) const {
    for (const InterpBuffer& b : buffers_) {
      const auto start = static_cast<int64_t>(reinterpret_cast<uintptr_t>(b.data));
      if (address >= start && address + bytes <= start + static_cast<int64_t>(b.bytes)) {
        if (address % bytes != 0) return opError(op, "misaligned access");
        return static_cast<uint8_t*>(b.data) + (address - start);
      }
    }
    // Name the nearest buffer: the one an index past its end most likely meant.
    std::string where;
    int64_t nearest = INT64_MAX;
    for (size_t i = 0; i < buffers_.size(); ++i) {
      const auto start =
          static_cast<int64_t>(reinterpret_cast<uintptr_t>(buffers_[i].data));
      const int64_t end = start + static_cast<int64_t>(buffers_[i].bytes);
      const int64_t distance = address < start ? start - address : address - end + 1;
      if (distance >= nearest) continue;
      nearest = distance;
      where = " (nearest: parameter " + std::to_string(i) + ", byte offset " +
              std::to_string(address - start) + " of " +
              std::to_string(buffers_[i].bytes) + ")";
    }
    return opError(op, "access outside every buffer" + where);
  }

  uint64_t junk() {  // splitmix64
    uint64_t z = (rng_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  Status load(const Op& op) {
    const Tensor& p = in(op, 0);
    const Tensor* mask = op.operands.size() > 1 ? &in(op, 1) : nullptr;
    const Tensor* other = op.operands.size() > 2 ? &in(op, 2) : nullptr;
    const Elem e = p.type.pointee;
    if (e == Elem::kI1) return opError(op, "load of i1");
    Tensor t = makeTensor(op.types[0]);
    const int bytes = bytesOf(e);
    for (int64_t i = 0; i < t.size(); ++i) {
      uint64_t bits = 0;
      if (mask && mask->ints[i] == 0) {
        if (other) {
          copyElement(*other, i, t, i);
          continue;
        }
        bits = junk();
      } else {
        JFT_ASSIGN_OR_RETURN(uint8_t * at, memory(op, p.ints[i], bytes));
        std::memcpy(&bits, at, bytes);  // little-endian host
      }
      if (bytes < 8) bits &= (uint64_t{1} << (8 * bytes)) - 1;
      if (isFloat(e))
        t.floats[i] = floatFromBits(bits, e);
      else
        t.ints[i] = wrapInt(bits, e);
    }
    set(op, 0, std::move(t));
    return Status::ok();
  }

  Status store(const Op& op) {
    const Tensor &p = in(op, 0), &v = in(op, 1);
    const Tensor* mask = op.operands.size() > 2 ? &in(op, 2) : nullptr;
    const Elem e = p.type.pointee;
    if (v.size() != p.size()) return opError(op, "value and pointer counts differ");
    const int bytes = bytesOf(e);
    for (int64_t i = 0; i < p.size(); ++i) {
      if (mask && mask->ints[i] == 0) continue;
      JFT_ASSIGN_OR_RETURN(uint8_t * at, memory(op, p.ints[i], bytes));
      const uint64_t bits =
          isFloat(e) ? floatBits(v.floats[i], e) : unsignedOf(v.ints[i], e);
      std::memcpy(at, &bits, bytes);
    }
    return Status::ok();
  }

  Status scfFor(const Op& op) {
    const int64_t lb = in(op, 0).ints[0], ub = in(op, 1).ints[0],
                  step = in(op, 2).ints[0];
    if (step <= 0) return opError(op, "non-positive step");
    std::vector<Tensor> carried;
    for (size_t i = 3; i < op.operands.size(); ++i) carried.push_back(in(op, i));
    const Region& body = op.regions[0];
    const Type iv_type = in(op, 0).type;
    for (int64_t iv = lb; iv < ub; iv += step) {
      Tensor t = makeTensor(iv_type);
      t.ints[0] = iv;
      slots_[body.args[0]] = std::move(t);
      for (size_t i = 0; i < carried.size(); ++i) slots_[body.args[i + 1]] = carried[i];
      std::vector<Tensor> next;
      JFT_RETURN_IF_ERROR(region(body, next));
      if (next.size() != carried.size()) return opError(op, "yield count");
      carried = std::move(next);
    }
    for (size_t i = 0; i < carried.size(); ++i) set(op, i, std::move(carried[i]));
    return Status::ok();
  }

  Status scfIf(const Op& op) {
    const Tensor& c = in(op, 0);
    if (c.size() != 1 || c.type.tensor) return opError(op, "condition not a scalar");
    std::vector<Tensor> yielded;
    if (c.ints[0] != 0)
      JFT_RETURN_IF_ERROR(region(op.regions[0], yielded));
    else if (op.regions.size() > 1)
      JFT_RETURN_IF_ERROR(region(op.regions[1], yielded));
    if (yielded.size() != op.results.size()) return opError(op, "yield count");
    for (size_t i = 0; i < yielded.size(); ++i) set(op, i, std::move(yielded[i]));
    return Status::ok();
  }

  // d = c + a . b for a [M, K], b [K, N], c and d [M, N]: each product is
  // exact in a double (operands of 24 significant bits or fewer) and every
  // step of the sum over k, in order, is rounded to the accumulator's type,
  // as an MMA's f32 accumulation does (its order may differ: a sum may differ
  // in its last bits). inputPrecision is not modelled: the emitters round
  // f32 operands of a tf32 product to TF32 themselves (tf32_rounding.h), and
  // the MMA reads such values exactly.
  Status dot(const Op& op) {
    const Tensor &a = in(op, 0), &b = in(op, 1), &c = in(op, 2);
    const Type& rt = op.types[0];
    if (a.type.shape.size() != 2 || b.type.shape.size() != 2 || rt.shape.size() != 2)
      return opError(op, "tt.dot of other than 2D tiles");
    const int64_t m = a.type.shape[0], k = a.type.shape[1], n = b.type.shape[1];
    if (b.type.shape[0] != k || rt.shape != std::vector<int64_t>{m, n} ||
        c.type.shape != rt.shape)
      return opError(op, "tt.dot shapes");
    if (!isFloat(a.type.elem) || !isFloat(b.type.elem) || !isFloat(rt.elem))
      return unimplemented("TTIR line " + std::to_string(op.line) +
                           ": integer tt.dot: " + op.text);
    Tensor t = makeTensor(rt);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = c.floats[i * n + j];
        for (int64_t x = 0; x < k; ++x)
          acc = roundTo(acc + a.floats[i * k + x] * b.floats[x * n + j], rt.elem);
        t.floats[i * n + j] = acc;
      }
    set(op, 0, std::move(t));
    return Status::ok();
  }

  // Each output lane folds its row along `axis` as a tree (stride 1, 2, 4...,
  // the lower index always the combiner's left side), as the GPU's lanes and
  // warps do; a float sum may differ from a left fold in its last bits.
  Status reduce(const Op& op) {
    const size_t count = op.operands.size();
    const int64_t axis = op.ints[0];
    const Type& shape_of = in(op, 0).type;
    if (axis < 0 || axis >= static_cast<int64_t>(shape_of.shape.size()))
      return opError(op, "axis");
    for (size_t k = 0; k < count; ++k)
      if (in(op, k).type.shape != shape_of.shape) return opError(op, "operand shapes");
    const int64_t n = shape_of.shape[axis];
    int64_t inner = 1;
    for (size_t d = axis + 1; d < shape_of.shape.size(); ++d) inner *= shape_of.shape[d];
    const int64_t outer = shape_of.size() / n / inner;
    std::vector<Tensor> results;
    for (size_t k = 0; k < count; ++k) {
      if (op.types.size() != count) return opError(op, "result types");
      results.push_back(makeTensor(op.types[k]));
      if (results[k].size() != outer * inner) return opError(op, "result size");
    }
    const Region& combiner = op.regions[0];
    if (combiner.args.size() != 2 * count) return opError(op, "combiner arguments");
    std::vector<std::vector<Tensor>> lanes(n);  // lanes[j][k]: operand k at j
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          lanes[j].resize(count);
          for (size_t k = 0; k < count; ++k) {
            const Tensor& x = in(op, k);
            Tensor s = makeTensor(Type{{}, x.type.elem, x.type.pointee, false});
            copyElement(x, (o * n + j) * inner + i, s, 0);
            lanes[j][k] = std::move(s);
          }
        }
        for (int64_t stride = 1; stride < n; stride *= 2)
          for (int64_t j = 0; j + stride < n; j += 2 * stride) {
            for (size_t k = 0; k < count; ++k) {
              slots_[combiner.args[k]] = lanes[j][k];
              slots_[combiner.args[count + k]] = lanes[j + stride][k];
            }
            std::vector<Tensor> combined;
            JFT_RETURN_IF_ERROR(region(combiner, combined));
            if (combined.size() != count) return opError(op, "combiner result count");
            lanes[j] = std::move(combined);
          }
        for (size_t k = 0; k < count; ++k)
          copyElement(lanes[0][k], 0, results[k], o * inner + i);
      }
    for (size_t k = 0; k < count; ++k) set(op, k, std::move(results[k]));
    return Status::ok();
  }

  const Function& f_;
  std::array<uint32_t, 3> grid_;
  const std::vector<InterpBuffer>& buffers_;
  uint64_t rng_;
  std::array<uint32_t, 3> pid_{};
  std::vector<Tensor> slots_;
};

}  // namespace
}  // namespace interp

Status runTtir(const std::string& ttir, std::array<uint32_t, 3> grid,
               const std::vector<InterpBuffer>& args, const InterpOptions& options) {
  JFT_ASSIGN_OR_RETURN(interp::Function f, interp::parseModule(ttir));
  return interp::Machine(f, grid, args, options).run();
}

}  // namespace jft::codegen::ttir::testing
