// Element types, tensor types and the numerics of stored values.
#include <bit>
#include <cmath>
#include <map>

#include "interp_internal.h"
#include "ir/float_text.h"

namespace jft::codegen::ttir::testing::interp {

bool isFloat(Elem e) {
  return e == Elem::kF16 || e == Elem::kBF16 || e == Elem::kF32 || e == Elem::kF64;
}

int bitsOf(Elem e) {
  switch (e) {
    case Elem::kI1:
      return 1;
    case Elem::kI8:
      return 8;
    case Elem::kI16:
    case Elem::kF16:
    case Elem::kBF16:
      return 16;
    case Elem::kI32:
    case Elem::kF32:
      return 32;
    case Elem::kI64:
    case Elem::kF64:
    case Elem::kPtr:
      return 64;
  }
  return 64;
}

int bytesOf(Elem e) {
  return e == Elem::kI1 ? 1 : bitsOf(e) / 8;
}

std::string nameOf(Elem e) {
  static const char* names[] = {"i1",  "i8",   "i16", "i32", "i64",
                                "f16", "bf16", "f32", "f64", "!tt.ptr"};
  return names[static_cast<int>(e)];
}

int64_t Type::size() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

Tensor makeTensor(const Type& type) {
  Tensor t;
  t.type = type;
  if (isFloat(type.elem))
    t.floats.assign(type.size(), 0.0);
  else
    t.ints.assign(type.size(), 0);
  return t;
}

namespace {

StatusOr<Elem> parseElem(std::string_view s) {
  static const std::map<std::string, Elem, std::less<>> table = {
      {"i1", Elem::kI1},     {"i8", Elem::kI8},   {"i16", Elem::kI16},
      {"i32", Elem::kI32},   {"i64", Elem::kI64}, {"f16", Elem::kF16},
      {"bf16", Elem::kBF16}, {"f32", Elem::kF32}, {"f64", Elem::kF64}};
  auto it = table.find(s);
  if (it == table.end()) return unimplemented("element type '" + std::string(s) + "'");
  return it->second;
}

}  // namespace

StatusOr<Type> parseType(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  Type t;
  if (s.starts_with("tensor<") && s.ends_with(">")) {
    t.tensor = true;
    s = s.substr(7, s.size() - 8);
    // Dimensions are digits followed by 'x'; the element type follows.
    while (!s.empty() && std::isdigit(static_cast<unsigned char>(s.front()))) {
      const size_t x = s.find('x');
      if (x == std::string_view::npos) return invalidArgument("malformed tensor type");
      t.shape.push_back(std::stoll(std::string(s.substr(0, x))));
      s.remove_prefix(x + 1);
    }
  }
  if (s.starts_with("!tt.ptr<") && s.ends_with(">")) {
    std::string_view inner = s.substr(8, s.size() - 9);
    inner = inner.substr(0, inner.find(','));  // "!tt.ptr<f32, 1>": address space
    t.elem = Elem::kPtr;
    JFT_ASSIGN_OR_RETURN(t.pointee, parseElem(inner));
    return t;
  }
  JFT_ASSIGN_OR_RETURN(t.elem, parseElem(s));
  return t;
}

int64_t wrapInt(uint64_t v, Elem e) {
  const int bits = bitsOf(e);
  if (e == Elem::kI1) return static_cast<int64_t>(v & 1);
  if (bits == 64) return static_cast<int64_t>(v);
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  const uint64_t sign = uint64_t{1} << (bits - 1);
  v &= mask;
  return static_cast<int64_t>((v ^ sign) - sign);
}

uint64_t unsignedOf(int64_t v, Elem e) {
  const int bits = bitsOf(e);
  if (bits == 64) return static_cast<uint64_t>(v);
  return static_cast<uint64_t>(v) & ((uint64_t{1} << bits) - 1);
}

namespace {

ir::ElementType halfType(Elem e) {
  return e == Elem::kF16 ? ir::ElementType::F16 : ir::ElementType::BF16;
}

constexpr uint64_t kHalfSign = 0x8000;

}  // namespace

double roundTo(double v, Elem e) {
  switch (e) {
    case Elem::kF32:
      return static_cast<double>(static_cast<float>(v));
    case Elem::kF16:
    case Elem::kBF16:
      return floatFromBits(floatBits(v, e), e);
    default:
      return v;
  }
}

// f32 and f64 by their bits, so a NaN keeps its sign and payload; the 16-bit
// types through ir/float_text.h (rounded once, to nearest even, straight from
// the double), a NaN keeping its sign on the type's canonical NaN.
uint64_t floatBits(double v, Elem e) {
  switch (e) {
    case Elem::kF64:
      return std::bit_cast<uint64_t>(v);
    case Elem::kF32:
      return std::bit_cast<uint32_t>(static_cast<float>(v));
    case Elem::kF16:
    case Elem::kBF16: {
      const uint64_t sign = std::signbit(v) ? kHalfSign : 0;
      if (std::isnan(v)) return (*ir::encodeFloat(halfType(e), NAN) & ~kHalfSign) | sign;
      return *ir::encodeFloat(halfType(e), v);  // both types have inf: never nullopt
    }
    default:
      return 0;
  }
}

double floatFromBits(uint64_t bits, Elem e) {
  switch (e) {
    case Elem::kF64:
      return std::bit_cast<double>(bits);
    case Elem::kF32:
      return std::bit_cast<float>(static_cast<uint32_t>(bits));
    case Elem::kF16:
    case Elem::kBF16: {
      const double v = ir::decodeFloat(halfType(e), bits & 0xFFFF);
      return std::isnan(v) ? std::copysign(v, (bits & kHalfSign) ? -1.0 : 1.0) : v;
    }
    default:
      return 0;
  }
}

}  // namespace jft::codegen::ttir::testing::interp
