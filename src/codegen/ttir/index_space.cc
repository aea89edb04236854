#include "codegen/ttir/index_space.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "codegen/ttir/tile_ops.h"
#include "support/status.h"

namespace jft::codegen::ttir {

std::vector<int64_t> rowMajorStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t d = dims.size(); d-- > 1;) strides[d - 1] = strides[d] * dims[d];
  return strides;
}

IndexBuilder::IndexBuilder(TtirWriter& writer, std::vector<int64_t> tile,
                           std::string index_type)
    : writer_(writer), tile_(std::move(tile)), index_type_(std::move(index_type)) {}

Value IndexBuilder::constant(int64_t v, const std::vector<int64_t>& shape,
                             const std::string& scalar) {
  const std::string type = tensorType(shape, scalar);
  const std::string text = scalar == "i1" ? (v ? "true" : "false") : std::to_string(v);
  const std::string key = text + ":" + type;
  if (auto it = constants_.find(key); it != constants_.end()) return it->second;
  Value c =
      shape.empty()
          ? writer_.op("arith.constant " + text + " : " + type, shape, scalar)
          : writer_.op("arith.constant dense<" + text + "> : " + type, shape, scalar);
  constants_.emplace(key, c);
  return c;
}

std::vector<int64_t> IndexBuilder::join(const std::vector<int64_t>& a,
                                        const std::vector<int64_t>& b) {
  JFT_CHECK(a.size() == b.size(), "tile values of different ranks");
  std::vector<int64_t> out(a.size());
  for (size_t i = 0; i < a.size(); ++i) out[i] = a[i] == 1 ? b[i] : a[i];
  return out;
}

Value IndexBuilder::broadcast(const Value& v, const std::vector<int64_t>& shape) {
  if (v.shape == shape) return v;
  return writer_.op(
      "tt.broadcast " + v.name + " : " + v.type + " -> " + tensorType(shape, v.scalar),
      shape, v.scalar);
}

Value IndexBuilder::binary(const std::string& op, const Value& a, const Value& b) {
  const std::vector<int64_t> shape = join(a.shape, b.shape);
  const Value x = broadcast(a, shape), y = broadcast(b, shape);
  return writer_.op(op + " " + x.name + ", " + y.name + " : " + x.type, shape, x.scalar);
}

Value IndexBuilder::addConst(const Value& a, int64_t c) {
  if (c == 0) return a;
  return binary("arith.addi", a, constant(c, a.shape, a.scalar));
}

Value IndexBuilder::mulConst(const Value& a, int64_t c) {
  if (c == 1) return a;
  if (c == 0) return constant(0, a.shape, a.scalar);
  return binary("arith.muli", a, constant(c, a.shape, a.scalar));
}

Value IndexBuilder::divConst(const Value& a, int64_t c) {
  if (c == 1) return a;
  return binary("arith.divsi", a, constant(c, a.shape, a.scalar));
}

Value IndexBuilder::remConst(const Value& a, int64_t c) {
  if (c == 1) return constant(0, a.shape, a.scalar);
  return binary("arith.remsi", a, constant(c, a.shape, a.scalar));
}

Value IndexBuilder::compare(const std::string& pred, const Value& a, const Value& b) {
  const std::vector<int64_t> shape = join(a.shape, b.shape);
  const Value x = broadcast(a, shape), y = broadcast(b, shape);
  return writer_.op("arith.cmpi " + pred + ", " + x.name + ", " + y.name + " : " + x.type,
                    shape, "i1");
}

Value IndexBuilder::compareConst(const std::string& pred, const Value& a, int64_t c) {
  return compare(pred, a, constant(c, a.shape, a.scalar));
}

Value IndexBuilder::both(const Value& a, const Value& b) {
  return binary("arith.andi", a, b);
}

Value IndexBuilder::select(const Value& cond, const Value& a, const Value& b) {
  std::vector<int64_t> shape = join(join(cond.shape, a.shape), b.shape);
  const Value c = broadcast(cond, shape), x = broadcast(a, shape),
              y = broadcast(b, shape);
  return writer_.op("arith.select " + c.name + ", " + x.name + ", " + y.name + " : " +
                        c.type + ", " + x.type,
                    shape, x.scalar);
}

Value IndexBuilder::toIndex(const Value& v, bool is_unsigned) {
  auto width = [](const std::string& s) { return std::stoi(s.substr(1)); };
  const int from = width(v.scalar), to = width(index_type_);
  if (from == to) return v;
  const std::string op =
      from > to ? "arith.trunci" : (is_unsigned ? "arith.extui" : "arith.extsi");
  return writer_.op(
      op + " " + v.name + " : " + v.type + " to " + tensorType(v.shape, index_type_),
      v.shape, index_type_);
}

Value IndexBuilder::clampToIndex(const Value& v, ir::ElementType element, int64_t hi) {
  const int bits = ir::bitWidth(element);
  const bool is_unsigned = ir::isUnsignedInteger(element);
  const int64_t type_max =
      bits >= 64 ? std::numeric_limits<int64_t>::max()
                 : (is_unsigned && bits < 63 ? (int64_t{1} << bits) - 1
                                             : (int64_t{1} << (bits - 1)) - 1);
  Value c = binary(is_unsigned ? "arith.minui" : "arith.minsi", v,
                   constant(std::min(hi, type_max), v.shape, v.scalar));
  if (!is_unsigned) c = binary("arith.maxsi", c, constant(0, v.shape, v.scalar));
  return toIndex(c, is_unsigned);
}

Value IndexBuilder::range(int axis) {
  const std::string key = "range" + std::to_string(axis);
  if (auto it = constants_.find(key); it != constants_.end()) return it->second;
  const int64_t n = tile_.at(axis);
  Value r = makeRange(writer_, n);
  if (tile_.size() == 2) r = expandDims(writer_, r, 1 - axis);
  r = toIndex(r, false);
  constants_.emplace(key, r);
  return r;
}

Value IndexBuilder::programId() {
  Value pid = writer_.op("tt.get_program_id x : i32", {}, "i32");
  if (index_type_ == "i32") return pid;
  return writer_.op("arith.extsi " + pid.name + " : i32 to " + index_type_, {},
                    index_type_);
}

Value IndexBuilder::scalarConstant(int64_t v) {
  return constant(v, {}, index_type_);
}

Value IndexBuilder::scalarBinary(const std::string& op, const Value& a, const Value& b) {
  return writer_.op(op + " " + a.name + ", " + b.name + " : " + a.type, {}, a.scalar);
}

Value IndexBuilder::splat(const Value& scalar, const std::vector<int64_t>& shape) {
  return writer_.op("tt.splat " + scalar.name + " : " + scalar.type + " -> " +
                        tensorType(shape, scalar.scalar),
                    shape, scalar.scalar);
}

int IndexBuilder::intern(IndexSpace space) {
  std::string key;
  for (int64_t d : space.dims) key += std::to_string(d) + "x";
  key += "|";
  bool all_comps = !space.comps.empty();
  for (const auto& c : space.comps) all_comps = all_comps && c.has_value();
  if (all_comps || space.dims.empty()) {
    for (const auto& c : space.comps) key += c->name + ",";
  } else {
    JFT_CHECK(space.linear.has_value(),
              "an index space needs components or a linear index");
    key += "L" + space.linear->name;
  }
  key += "|";
  for (const Value& b : space.bounds) key += b.name + ",";
  if (space.valid) key += "|" + space.valid->name;
  if (auto it = by_key_.find(key); it != by_key_.end()) return it->second;
  if (space.comps.size() != space.dims.size()) space.comps.resize(space.dims.size());
  spaces_.push_back(std::move(space));
  by_key_.emplace(key, static_cast<int>(spaces_.size() - 1));
  return static_cast<int>(spaces_.size() - 1);
}

Value IndexBuilder::component(int id, size_t dim) {
  IndexSpace& s = spaces_.at(id);
  if (s.comps.at(dim)) return *s.comps[dim];
  Value c;
  if (s.dims[dim] == 1) {
    c = indexConstant(0, ones());
  } else {
    JFT_CHECK(s.linear.has_value(), "index component without a linear index");
    const std::vector<int64_t> strides = rowMajorStrides(s.dims);
    c = divConst(*s.linear, strides[dim]);
    // The leading non-unit dim needs no remainder: linear < product of dims.
    bool leading = true;
    for (size_t d = 0; d < dim; ++d) leading = leading && s.dims[d] == 1;
    if (!leading) c = remConst(c, s.dims[dim]);
  }
  spaces_.at(id).comps[dim] = c;
  return c;
}

Value IndexBuilder::linear(int id) {
  if (spaces_.at(id).linear) return *spaces_.at(id).linear;
  const std::vector<int64_t> dims = spaces_.at(id).dims;
  const std::vector<int64_t> strides = rowMajorStrides(dims);
  std::optional<Value> sum;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 1) continue;
    Value term = mulConst(component(id, d), strides[d]);
    sum = sum ? add(*sum, term) : term;
  }
  Value l = sum ? *sum : indexConstant(0, ones());
  spaces_.at(id).linear = l;
  return l;
}

std::optional<Value> IndexBuilder::accessMask(int id,
                                              const std::vector<int64_t>& address_shape) {
  const IndexSpace s = spaces_.at(id);
  std::optional<Value> mask;
  for (const Value& b : s.bounds) {
    bool inside = true;
    for (size_t a = 0; a < b.shape.size(); ++a)
      inside = inside && (b.shape[a] == 1 || address_shape[a] != 1);
    if (!inside) continue;
    mask = mask ? both(*mask, b) : b;
  }
  if (s.valid) mask = mask ? both(*mask, *s.valid) : *s.valid;
  return mask;
}

std::optional<Value> IndexBuilder::fullMask(int id) {
  const IndexSpace s = spaces_.at(id);
  std::optional<Value> mask;
  for (const Value& b : s.bounds) mask = mask ? both(*mask, b) : b;
  if (s.valid) mask = mask ? both(*mask, *s.valid) : *s.valid;
  return mask;
}

void IndexBuilder::restore(State s) {
  spaces_ = std::move(s.spaces);
  by_key_ = std::move(s.by_key);
  constants_ = std::move(s.constants);
}

}  // namespace jft::codegen::ttir
