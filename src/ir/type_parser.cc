#include "ir/type_parser.h"

namespace jft::ir {
namespace {

// Tuples nest; a bound keeps hostile text from exhausting the stack.
constexpr int kMaxTypeDepth = 64;

bool parseTypeAt(TextCursor& cursor, Type& out, int depth);

// After "complex<": the component type and the closing '>'.
bool complexOf(TextCursor& cursor, ElementType& out) {
  ElementType part;
  if (!parseElementType(cursor, part) || !cursor.expect(">")) return false;
  if (part == ElementType::F32)
    out = ElementType::C64;
  else if (part == ElementType::F64)
    out = ElementType::C128;
  else
    return cursor.fail("complex<f32> or complex<f64>");
  return true;
}

// More elements than any device holds; the bound keeps element counts (a
// product of dims) far from int64 overflow wherever they are computed.
constexpr int64_t kMaxElements = int64_t{1} << 48;

bool checkElementCount(TextCursor& cursor, size_t at, const Type& type) {
  int64_t count = 1;
  for (int64_t d : type.dims) {
    if (d != 0 && count > kMaxElements / d)
      return cursor.failAt(at, "tensor type with more than 2^48 elements");
    count *= d;
  }
  return true;
}

bool parseTensorBodyDims(TextCursor& cursor, Type& out);

bool parseTensorBody(TextCursor& cursor, Type& out) {
  const size_t at = cursor.offset();
  return parseTensorBodyDims(cursor, out) && checkElementCount(cursor, at, out);
}

bool parseTensorBodyDims(TextCursor& cursor, Type& out) {
  out = Type::tensor(ElementType::F32, {});
  // Dims are digits followed by 'x'; the element type ends the list.
  while (cursor.peek() >= '0' && cursor.peek() <= '9') {
    const size_t at = cursor.offset();
    auto word = cursor.word();  // "4x8xf32" lexes as one word
    if (!word) return cursor.fail("a dimension");
    std::string_view rest = *word;
    // Peel "<digits>x" prefixes off the word; what remains is the element.
    while (!rest.empty() && rest[0] >= '0' && rest[0] <= '9') {
      size_t digits = 0;
      int64_t dim = 0;
      while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') {
        if (dim > (int64_t{1} << 50)) return cursor.failAt(at, "dimension too large");
        dim = dim * 10 + (rest[digits] - '0');
        ++digits;
      }
      if (digits >= rest.size() || rest[digits] != 'x')
        return cursor.failAt(at, "expected 'x' after a dimension");
      out.dims.push_back(dim);
      rest.remove_prefix(digits + 1);
    }
    if (rest.empty()) continue;  // "complex<...>" follows the last 'x'
    if (rest == "complex") {
      if (!cursor.expect("<") || !complexOf(cursor, out.element)) return false;
      return cursor.expect(">");
    }
    auto element = ::jft::ir::parseElementType(rest);
    if (!element)
      return cursor.failAt(at, "unknown element type '" + std::string(rest) + "'");
    out.element = *element;
    return cursor.expect(">");
  }
  if (!parseElementType(cursor, out.element)) return false;
  return cursor.expect(">");
}

bool parseTypeAt(TextCursor& cursor, Type& out, int depth) {
  if (depth > kMaxTypeDepth) return cursor.fail("a type nested less deeply");
  if (cursor.consume("!stablehlo.token")) {
    out = Type::token();
    return true;
  }
  if (cursor.consume("tensor<")) return parseTensorBody(cursor, out);
  if (cursor.consume("tuple<")) {
    std::vector<Type> elements;
    if (!cursor.consume(">")) {
      do {
        Type element;
        if (!parseTypeAt(cursor, element, depth + 1)) return false;
        elements.push_back(std::move(element));
      } while (cursor.consume(","));
      if (!cursor.expect(">")) return false;
    }
    out = Type::makeTuple(std::move(elements));
    return true;
  }
  return cursor.fail("a type (tensor<...>, tuple<...> or !stablehlo.token)");
}

}  // namespace

bool parseElementType(TextCursor& cursor, ElementType& out) {
  if (cursor.consume("complex<")) return complexOf(cursor, out);
  const size_t at = cursor.offset();
  auto word = cursor.word();
  if (!word) return cursor.fail("an element type");
  auto element = ::jft::ir::parseElementType(*word);
  if (!element)
    return cursor.failAt(at, "unknown element type '" + std::string(*word) + "'");
  out = *element;
  return true;
}

bool parseType(TextCursor& cursor, Type& out) {
  return parseTypeAt(cursor, out, 0);
}

bool startsType(TextCursor& cursor) {
  return cursor.startsWith("tensor<") || cursor.startsWith("tuple<") ||
         cursor.startsWith("!stablehlo.token");
}

bool parseScalarOrType(TextCursor& cursor, Type& out) {
  if (startsType(cursor)) return parseType(cursor, out);
  out = Type::scalar(ElementType::F32);
  return parseElementType(cursor, out.element);
}

}  // namespace jft::ir
