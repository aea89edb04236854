#include "ir/literal_parser.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>

#include "ir/float_text.h"

namespace jft::ir {
namespace {

constexpr int kMaxLiteralDepth = 32;

bool parseNested(TextCursor& cursor, LiteralText& out, size_t depth, size_t& leaf_depth) {
  if (depth > kMaxLiteralDepth) return cursor.fail("a literal nested less deeply");
  const size_t at = cursor.offset();
  if (!cursor.consume("[")) {
    std::string_view element = cursor.balancedUntil(",]>");
    if (element.empty()) return cursor.fail("a literal element");
    if (leaf_depth == SIZE_MAX) leaf_depth = depth;
    if (depth != leaf_depth)
      return cursor.failAt(at, "literal elements at different bracket depths");
    out.elements.push_back(element);
    out.element_offsets.push_back(at);
    return true;
  }
  if (depth >= leaf_depth)
    return cursor.failAt(at, "literal elements at different bracket depths");
  int64_t count = 0;
  if (!cursor.consume("]")) {
    do {
      if (!parseNested(cursor, out, depth + 1, leaf_depth)) return false;
      ++count;
    } while (cursor.consume(","));
    if (!cursor.expect("]")) return false;
  }
  if (out.shape.size() <= depth) out.shape.resize(depth + 1, -1);
  if (out.shape[depth] >= 0 && out.shape[depth] != count)
    return cursor.failAt(at, "lists of one length at each depth of a literal");
  out.shape[depth] = count;
  return true;
}

std::optional<uint64_t> floatBits(ElementType type, std::string_view text) {
  if (text.starts_with("0x") || text.starts_with("0X")) {
    uint64_t bits = 0;
    auto [ptr, ec] =
        std::from_chars(text.data() + 2, text.data() + text.size(), bits, 16);
    if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
    const int width = bitWidth(type);
    if (width < 64 && bits >> width) return std::nullopt;
    return bits;
  }
  const bool negative = text.starts_with("-");
  std::string_view magnitude = negative ? text.substr(1) : text;
  double value;
  if (magnitude == "inf") {
    value = HUGE_VAL;
  } else if (magnitude == "nan") {
    value = std::nan("");
  } else if (type == ElementType::F32) {
    // Straight to float: going through double could round twice.
    float narrow;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), narrow);
    if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
    return encodeFloat(type, narrow);
  } else {
    auto [ptr, ec] =
        std::from_chars(magnitude.data(), magnitude.data() + magnitude.size(), value);
    if (ec != std::errc() || ptr != magnitude.data() + magnitude.size())
      return std::nullopt;
  }
  return encodeFloat(type, negative ? -value : value);
}

std::optional<uint64_t> integerBits(ElementType type, std::string_view text) {
  const int width = bitWidth(type);
  const char* end = text.data() + text.size();
  if (isUnsignedInteger(type)) {
    uint64_t value;
    auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc() || ptr != end) return std::nullopt;
    if (width < 64 && value >> width) return std::nullopt;
    return value;
  }
  int64_t value;
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  if (width < 64) {
    const int64_t limit = int64_t{1} << (width - 1);
    if (value < -limit || value >= limit) return std::nullopt;
  }
  return static_cast<uint64_t>(value);
}

// One element's bytes, or false with an error at `at`.
bool encodeElement(TextCursor& cursor, ElementType type, std::string_view text, size_t at,
                   std::vector<uint8_t>& out) {
  const int64_t size = storageBytes(type);
  auto bad = [&](std::string_view what) {
    return cursor.failAt(at, "'" + std::string(text) + "' is not " + std::string(what) +
                                 " of " + std::string(elementTypeName(type)));
  };
  if (isPred(type)) {
    if (text != "true" && text != "false" && text != "0" && text != "1")
      return bad("a value");
    out.push_back(text == "true" || text == "1" ? 1 : 0);
    return true;
  }
  if (isComplex(type)) {
    const ElementType part = complexComponent(type);
    if (text.size() < 2 || text.front() != '(' || text.back() != ')')
      return bad("a value");
    std::string_view inner = text.substr(1, text.size() - 2);
    const size_t comma = inner.find(',');
    if (comma == std::string_view::npos) return bad("a value");
    auto trim = [](std::string_view s) {
      while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
      while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
      return s;
    };
    auto re = floatBits(part, trim(inner.substr(0, comma)));
    auto im = floatBits(part, trim(inner.substr(comma + 1)));
    if (!re || !im) return bad("a value");
    appendLittleEndian(out, *re, size / 2);
    appendLittleEndian(out, *im, size / 2);
    return true;
  }
  auto bits = isFloat(type) ? floatBits(type, text) : integerBits(type, text);
  if (!bits) return bad("a value");
  appendLittleEndian(out, *bits, size);
  return true;
}

}  // namespace

bool parseLiteralText(TextCursor& cursor, LiteralText& out) {
  out = LiteralText{};
  out.offset = cursor.offset();
  if (!cursor.expect("dense<")) return false;
  if (cursor.startsWith("...>"))
    return cursor.fail(
        "a literal with its elements (this one was elided by the printer's "
        "max_dense_elements)");
  if (cursor.startsWith("?")) return cursor.fail("a well-formed literal");
  if (cursor.consume(">")) {
    out.nested = true;  // dense<>: no elements
    return true;
  }
  out.nested = cursor.startsWith("[");
  size_t leaf_depth = SIZE_MAX;
  if (!parseNested(cursor, out, 0, leaf_depth)) return false;
  return cursor.expect(">");
}

bool buildDense(TextCursor& cursor, const LiteralText& text, const Type& type,
                DenseElements& out) {
  if (!type.isTensor())
    return cursor.failAt(text.offset, "a dense literal needs a tensor type");
  out = DenseElements{};
  out.type = type;
  std::vector<uint8_t> bytes;
  for (size_t i = 0; i < text.elements.size(); ++i)
    if (!encodeElement(cursor, type.element, text.elements[i], text.element_offsets[i],
                       bytes))
      return false;
  if (!text.nested) {
    out = DenseElements::makeSplat(type, std::move(bytes));
    return true;
  }
  const std::vector<int64_t> shape =
      text.elements.empty() && text.shape.empty() ? std::vector<int64_t>{0} : text.shape;
  const bool empty_ok = text.elements.empty() && type.numElements() == 0;
  if (!empty_ok && shape != type.dims)
    return cursor.failAt(text.offset, "literal shape does not match " + type.str());
  out.bytes = std::move(bytes);
  return true;
}

}  // namespace jft::ir
