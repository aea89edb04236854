#include "codegen/ttir/ttir_writer.h"

#include <utility>

namespace jft::codegen::ttir {

using ir::ElementType;

namespace {
// "i32", "%17". (Appended, not `"i" + std::to_string(n)`, which GCC 12 at -O3
// reports as an overlapping memcpy.)
std::string prefixed(char prefix, int64_t n) {
  std::string out(1, prefix);
  out += std::to_string(n);
  return out;
}
}  // namespace

std::string registerType(ElementType element) {
  switch (element) {
    case ElementType::PRED:
      return "i1";
    case ElementType::F16:
      return "f16";
    case ElementType::BF16:
      return "bf16";
    case ElementType::F32:
      return "f32";
    case ElementType::F64:
      return "f64";
    case ElementType::F8E4M3FN:
      return "f8E4M3FN";
    case ElementType::F8E5M2:
      return "f8E5M2";
    default:
      break;
  }
  if (ir::isComplex(element)) return "";
  const int bits = ir::bitWidth(element);
  if (ir::isInteger(element) && bits >= 8) return prefixed('i', bits);
  return "i8";  // sub-byte integers, exotic narrow floats: opaque bytes
}

std::string memoryType(ElementType element) {
  return element == ElementType::PRED ? "i8" : registerType(element);
}

std::string tensorType(const std::vector<int64_t>& shape, std::string_view scalar) {
  if (shape.empty()) return std::string(scalar);
  std::string out = "tensor<";
  for (int64_t d : shape) out += std::to_string(d) + "x";
  out += scalar;
  out += ">";
  return out;
}

Value TtirWriter::op(std::string_view text, std::vector<int64_t> shape,
                     std::string scalar) {
  Value v;
  v.name = freshName();
  v.type = tensorType(shape, scalar);
  v.shape = std::move(shape);
  v.scalar = std::move(scalar);
  line(v.name + " = " + std::string(text));
  return v;
}

void TtirWriter::line(std::string_view text) {
  body_.append(static_cast<size_t>(indent_), ' ');
  body_ += text;
  body_ += '\n';
}

void TtirWriter::open(std::string_view header) {
  line(header);
  indent_ += 2;
}

void TtirWriter::close(std::string_view footer) {
  if (indent_ > 2) indent_ -= 2;
  line(footer);
}

void TtirWriter::between(std::string_view text) {
  close(text);
  indent_ += 2;
}

std::string TtirWriter::freshName() {
  return prefixed('%', next_++);
}

}  // namespace jft::codegen::ttir
