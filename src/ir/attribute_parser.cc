#include "ir/attribute_parser.h"

#include <charconv>
#include <cmath>
#include <functional>

#include "ir/attribute_fields.h"
#include "ir/literal_parser.h"
#include "ir/type_parser.h"

namespace jft::ir {
namespace {

// Lists and dictionaries nest; a bound keeps hostile text off the stack's end.
constexpr int kMaxAttrDepth = 64;

bool parseAttributeAt(TextCursor& cursor, Attribute& out, int depth);
bool parseDictAt(TextCursor& cursor, NamedAttrs& out, int depth);

bool intList(TextCursor& cursor, std::vector<int64_t>& out) {
  if (!cursor.expect("[")) return false;
  out.clear();
  if (cursor.consume("]")) return true;
  do {
    int64_t v;
    if (!cursor.integer(v)) return false;
    out.push_back(v);
  } while (cursor.consume(","));
  return cursor.expect("]");
}

bool boolWord(TextCursor& cursor, bool& out) {
  if (cursor.consumeKeyword("true")) return out = true, true;
  if (cursor.consumeKeyword("false")) return out = false, true;
  return cursor.fail("true or false");
}

// `name = value, ...` up to the closing '>' of a #stablehlo.X<...> struct;
// `field` parses the value of the field it is given and fails on a name it
// does not know.
bool parseFields(TextCursor& cursor, const std::function<bool(std::string_view)>& field) {
  if (cursor.consume(">")) return true;
  do {
    const size_t at = cursor.offset();
    auto name = cursor.word();
    if (!name) return cursor.fail("a field name");
    if (!cursor.expect("=")) return false;
    if (!field(*name)) {
      if (!cursor.failed())
        cursor.failAt(at, "unknown field '" + std::string(*name) + "'");
      return false;
    }
  } while (cursor.consume(","));
  return cursor.expect(">");
}

// Field handler over named int lists and ints.
struct FieldTable {
  std::vector<std::pair<std::string_view, std::vector<int64_t>*>> lists;
  std::vector<std::pair<std::string_view, int64_t*>> ints;
  bool operator()(TextCursor& cursor, std::string_view name) const {
    for (auto& [n, p] : lists)
      if (n == name) return intList(cursor, *p);
    for (auto& [n, p] : ints)
      if (n == name) return cursor.integer(*p);
    return false;
  }
};

bool structFields(TextCursor& cursor, const FieldTable& table) {
  return parseFields(cursor, [&](std::string_view n) { return table(cursor, n); });
}

// The fields of AttrFields<T> into `value`.
template <typename T>
bool attrFields(TextCursor& cursor, T& value) {
  FieldTable table;
  for (const ListField<T>& field : AttrFields<T>::lists)
    table.lists.emplace_back(field.name, &(value.*field.member));
  for (const IntField<T>& field : AttrFields<T>::ints)
    table.ints.emplace_back(field.name, &(value.*field.member));
  return structFields(cursor, table);
}

// One `[b, 0, 1, f]` layout of #stablehlo.conv.
bool convLayout(TextCursor& cursor, char batch, char feature, int64_t& batch_dim,
                int64_t& feature_dim, std::vector<int64_t>& spatial) {
  if (!cursor.expect("[")) return false;
  std::vector<int64_t> by_index;
  bool seen_batch = false, seen_feature = false;
  int64_t dim = 0;
  if (!cursor.consume("]")) {
    do {
      const size_t at = cursor.offset();
      if (cursor.peek() >= '0' && cursor.peek() <= '9') {
        int64_t index;
        if (!cursor.integer(index)) return false;
        if (index < 0 || index > 1024)
          return cursor.failAt(at, "spatial index out of range");
        if (static_cast<int64_t>(by_index.size()) <= index)
          by_index.resize(index + 1, -1);
        if (by_index[index] >= 0) return cursor.failAt(at, "spatial index given twice");
        by_index[index] = dim;
      } else if (cursor.consume(std::string(1, batch)) && !seen_batch) {
        batch_dim = dim;
        seen_batch = true;
      } else if (cursor.consume(std::string(1, feature)) && !seen_feature) {
        feature_dim = dim;
        seen_feature = true;
      } else {
        return cursor.failAt(at, std::string("expected a spatial index, '") + batch +
                                     "' or '" + feature + "' once each");
      }
      ++dim;
    } while (cursor.consume(","));
    if (!cursor.expect("]")) return false;
  }
  for (int64_t d : by_index)
    if (d < 0) return cursor.fail("every spatial index below the largest");
  if (!seen_batch || !seen_feature)
    return cursor.fail("a layout with both of its labels");
  spatial = std::move(by_index);
  return true;
}

template <typename E, size_t N>
bool enumWord(TextCursor& cursor, const std::pair<std::string_view, E> (&names)[N],
              E& out) {
  const size_t at = cursor.offset();
  auto word = cursor.word();
  if (word)
    for (const auto& [n, v] : names)
      if (n == *word) return out = v, true;
  return cursor.failAt(at, "unknown enum value '" + std::string(word ? *word : "") + "'");
}

template <typename E, size_t N>
bool enumAttr(TextCursor& cursor, const std::pair<std::string_view, E> (&names)[N],
              Attribute& out) {
  E value{};
  if (!enumWord(cursor, names, value) || !cursor.expect(">")) return false;
  out = value;
  return true;
}

constexpr std::pair<std::string_view, ComparisonDirection> kDirections[] = {
    {"EQ", ComparisonDirection::EQ}, {"NE", ComparisonDirection::NE},
    {"GE", ComparisonDirection::GE}, {"GT", ComparisonDirection::GT},
    {"LE", ComparisonDirection::LE}, {"LT", ComparisonDirection::LT}};
constexpr std::pair<std::string_view, ComparisonType> kCompareTypes[] = {
    {"NOTYPE", ComparisonType::NOTYPE},
    {"FLOAT", ComparisonType::FLOAT},
    {"TOTALORDER", ComparisonType::TOTALORDER},
    {"SIGNED", ComparisonType::SIGNED},
    {"UNSIGNED", ComparisonType::UNSIGNED}};
constexpr std::pair<std::string_view, Precision> kPrecisions[] = {
    {"DEFAULT", Precision::DEFAULT},
    {"HIGH", Precision::HIGH},
    {"HIGHEST", Precision::HIGHEST}};
constexpr std::pair<std::string_view, FftType> kFftTypes[] = {{"FFT", FftType::FFT},
                                                              {"IFFT", FftType::IFFT},
                                                              {"RFFT", FftType::RFFT},
                                                              {"IRFFT", FftType::IRFFT}};
constexpr std::pair<std::string_view, RngAlgorithm> kRngAlgorithms[] = {
    {"DEFAULT", RngAlgorithm::DEFAULT},
    {"THREE_FRY", RngAlgorithm::THREE_FRY},
    {"PHILOX", RngAlgorithm::PHILOX}};
constexpr std::pair<std::string_view, RngDistribution> kRngDistributions[] = {
    {"UNIFORM", RngDistribution::UNIFORM}, {"NORMAL", RngDistribution::NORMAL}};
constexpr std::pair<std::string_view, Transpose> kTransposes[] = {
    {"NO_TRANSPOSE", Transpose::NO_TRANSPOSE},
    {"TRANSPOSE", Transpose::TRANSPOSE},
    {"ADJOINT", Transpose::ADJOINT}};
constexpr std::pair<std::string_view, ResultAccuracyMode> kAccuracyModes[] = {
    {"DEFAULT", ResultAccuracyMode::DEFAULT},
    {"HIGHEST", ResultAccuracyMode::HIGHEST},
    {"TOLERANCE", ResultAccuracyMode::TOLERANCE}};

bool parseDouble(TextCursor& cursor, double& out) {
  const size_t at = cursor.offset();
  const bool negative = cursor.consume("-");
  if (cursor.consumeKeyword("inf")) return out = negative ? -HUGE_VAL : HUGE_VAL, true;
  if (cursor.consumeKeyword("nan")) return out = std::nan(""), true;
  std::string_view text = cursor.balancedUntil(",>]}) \n");
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
    return cursor.failAt(at, "expected a floating-point number");
  if (negative) out = -out;
  return true;
}

bool parseAccuracy(TextCursor& cursor, Attribute& out) {
  ResultAccuracy r;
  bool ok = parseFields(cursor, [&](std::string_view n) {
    if (n == "atol") return parseDouble(cursor, r.atol);
    if (n == "rtol") return parseDouble(cursor, r.rtol);
    if (n == "ulps") return cursor.integer(r.ulps);
    if (n == "mode")
      return cursor.expect("#stablehlo.result_accuracy_mode<") &&
             enumWord(cursor, kAccuracyModes, r.mode) && cursor.expect(">");
    return false;
  });
  if (ok) out = r;
  return ok;
}

bool parseDotAlgorithm(TextCursor& cursor, Attribute& out) {
  DotAlgorithm a;
  bool ok = parseFields(cursor, [&](std::string_view n) {
    if (n == "lhs_precision_type") return parseScalarOrType(cursor, a.lhs_precision_type);
    if (n == "rhs_precision_type") return parseScalarOrType(cursor, a.rhs_precision_type);
    if (n == "accumulation_type") return parseScalarOrType(cursor, a.accumulation_type);
    if (n == "lhs_component_count") return cursor.integer(a.lhs_component_count);
    if (n == "rhs_component_count") return cursor.integer(a.rhs_component_count);
    if (n == "num_primitive_operations")
      return cursor.integer(a.num_primitive_operations);
    if (n == "allow_imprecise_accumulation")
      return boolWord(cursor, a.allow_imprecise_accumulation);
    return false;
  });
  if (ok) out = a;
  return ok;
}

bool parseAlias(TextCursor& cursor, OutputOperandAlias& a) {
  if (!cursor.expect("#stablehlo.output_operand_alias<")) return false;
  return structFields(cursor, {{{"output_tuple_indices", &a.output_tuple_indices},
                                {"operand_tuple_indices", &a.operand_tuple_indices}},
                               {{"operand_index", &a.operand_index}}});
}

// `#...` attributes: StableHLO's enums and structs, else opaque.
bool parseHashAttr(TextCursor& cursor, Attribute& out) {
  if (cursor.consume("#stablehlo<comparison_direction"))
    return enumAttr(cursor, kDirections, out);
  if (cursor.consume("#stablehlo<comparison_type"))
    return enumAttr(cursor, kCompareTypes, out);
  if (cursor.consume("#stablehlo<fft_type")) return enumAttr(cursor, kFftTypes, out);
  if (cursor.consume("#stablehlo<rng_algorithm"))
    return enumAttr(cursor, kRngAlgorithms, out);
  if (cursor.consume("#stablehlo<rng_distribution"))
    return enumAttr(cursor, kRngDistributions, out);
  if (cursor.consume("#stablehlo<transpose")) return enumAttr(cursor, kTransposes, out);
  if (cursor.consume("#stablehlo.dot<")) {
    DotDimensionNumbers d;
    if (!attrFields(cursor, d)) return false;
    out = d;
    return true;
  }
  if (cursor.consume("#stablehlo.dot_algorithm<")) return parseDotAlgorithm(cursor, out);
  if (cursor.consume("#stablehlo.gather<")) {
    GatherDimensionNumbers g;
    if (!attrFields(cursor, g)) return false;
    out = g;
    return true;
  }
  if (cursor.consume("#stablehlo.scatter<")) {
    ScatterDimensionNumbers s;
    if (!attrFields(cursor, s)) return false;
    out = s;
    return true;
  }
  if (cursor.consume("#stablehlo.conv<")) {
    ConvDimensionNumbers c;
    if (!convLayout(cursor, 'b', 'f', c.input_batch_dim, c.input_feature_dim,
                    c.input_spatial_dims) ||
        !cursor.expect("x") ||
        !convLayout(cursor, 'i', 'o', c.kernel_input_feature_dim,
                    c.kernel_output_feature_dim, c.kernel_spatial_dims) ||
        !cursor.expect("->") ||
        !convLayout(cursor, 'b', 'f', c.output_batch_dim, c.output_feature_dim,
                    c.output_spatial_dims) ||
        !cursor.expect(">"))
      return false;
    out = c;
    return true;
  }
  if (cursor.consume("#stablehlo.result_accuracy<")) return parseAccuracy(cursor, out);
  if (cursor.consume("#stablehlo.channel_handle<")) {
    ChannelHandle h;
    if (!structFields(cursor, {{}, {{"handle", &h.handle}, {"type", &h.type}}}))
      return false;
    out = h;
    return true;
  }
  // A dialect attribute ir keeps as text: `#sdy.sharding<...>`, `#foo<?>`.
  std::string_view text = cursor.balancedUntil(",}])");
  if (text.size() < 2) return cursor.fail("an attribute after '#'");
  std::string_view dialect = text.substr(1);
  dialect = dialect.substr(0, std::min(dialect.find('.'), dialect.find('<')));
  out = OpaqueAttr{std::string(dialect), std::string(text)};
  return true;
}

bool parseList(TextCursor& cursor, Attribute& out, int depth) {
  if (cursor.consume("]")) {
    out = AttrList{};
    return true;
  }
  if (cursor.startsWith("#stablehlo<precision")) {
    std::vector<Precision> values;
    do {
      Precision p{};
      if (!cursor.expect("#stablehlo<precision") || !enumWord(cursor, kPrecisions, p) ||
          !cursor.expect(">"))
        return false;
      values.push_back(p);
    } while (cursor.consume(","));
    out = std::move(values);
    return cursor.expect("]");
  }
  if (cursor.startsWith("#stablehlo.output_operand_alias<")) {
    std::vector<OutputOperandAlias> aliases;
    do {
      aliases.emplace_back();
      if (!parseAlias(cursor, aliases.back())) return false;
    } while (cursor.consume(","));
    out = std::move(aliases);
    return cursor.expect("]");
  }
  AttrList list;
  do {
    list.emplace_back();
    if (!parseAttributeAt(cursor, list.back(), depth + 1)) return false;
  } while (cursor.consume(","));
  out = std::move(list);
  return cursor.expect("]");
}

// `array<i64: 1, 2>` / `array<i1: true>`; other element types stay opaque.
bool parseArray(TextCursor& cursor, Attribute& out) {
  if (cursor.consume("array<i64")) {
    std::vector<int64_t> values;
    if (cursor.consume(":")) {
      do {
        values.emplace_back();
        if (!cursor.integer(values.back())) return false;
      } while (cursor.consume(","));
    }
    out = std::move(values);
    return cursor.expect(">");
  }
  if (cursor.consume("array<i1")) {
    std::vector<bool> values;
    if (cursor.consume(":")) {
      do {
        bool b = false;
        if (!boolWord(cursor, b)) return false;
        values.push_back(b);
      } while (cursor.consume(","));
    }
    out = std::move(values);
    return cursor.expect(">");
  }
  out = OpaqueAttr{"builtin", std::string(cursor.balancedUntil(",}])"))};
  return true;
}

// An integer (`4`, or `4 : i32` for custom_call's api_version) or a float;
// anything else that starts like a number (`0x15B8...`) came from an
// OpaqueAttr.
bool parseNumber(TextCursor& cursor, Attribute& out) {
  const size_t at = cursor.offset();
  std::string_view text = cursor.balancedUntil(",}])");
  const bool api_version = text.ends_with(" : i32");
  std::string_view number = api_version ? text.substr(0, text.size() - 6) : text;
  const char* end = number.data() + number.size();
  int64_t integer;
  auto [ptr, ec] = std::from_chars(number.data(), end, integer);
  if (!number.empty() && ec == std::errc() && ptr == end) {
    if (!api_version) return out = integer, true;
    if (integer < 0 || integer > 4) return cursor.failAt(at, "api_version out of range");
    out = static_cast<CustomCallApiVersion>(integer);
    return true;
  }
  double value;
  auto [fptr, fec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (!text.empty() && fec == std::errc() && fptr == text.data() + text.size())
    return out = value, true;
  if (text.empty()) return cursor.fail("an attribute value");
  out = OpaqueAttr{"builtin", std::string(text)};
  return true;
}

bool parseAttributeAt(TextCursor& cursor, Attribute& out, int depth) {
  if (depth > kMaxAttrDepth) return cursor.fail("an attribute nested less deeply");
  const char c = cursor.peek();
  if (cursor.consumeKeyword("unit")) return out = UnitAttr{}, true;
  if (cursor.consumeKeyword("true")) return out = true, true;
  if (cursor.consumeKeyword("false")) return out = false, true;
  if (cursor.consumeKeyword("inf")) return out = HUGE_VAL, true;
  if (cursor.consumeKeyword("-inf")) return out = -HUGE_VAL, true;
  if (cursor.consumeKeyword("nan")) return out = std::nan(""), true;
  if (c == '"') {
    std::string s;
    if (!cursor.quoted(s)) return false;
    out = std::move(s);
    return true;
  }
  if (c == '@') {
    cursor.consume("@");
    auto name = cursor.word();
    if (!name) return cursor.fail("a symbol name after '@'");
    out = SymbolRef{std::string(*name)};
    return true;
  }
  if (cursor.startsWith("dense<")) {
    LiteralText literal;
    Type type;
    DenseElements dense;
    if (!parseLiteralText(cursor, literal) || !cursor.expect(":") ||
        !parseType(cursor, type) || !buildDense(cursor, literal, type, dense))
      return false;
    out = std::move(dense);
    return true;
  }
  if (startsType(cursor)) {
    Type type;
    if (!parseType(cursor, type)) return false;
    out = std::move(type);
    return true;
  }
  if (c == '#') return parseHashAttr(cursor, out);
  if (cursor.startsWith("array<")) return parseArray(cursor, out);
  if (cursor.consume("[")) return parseList(cursor, out, depth);
  if (c == '{') {
    NamedAttrs dict;
    if (!parseDictAt(cursor, dict, depth + 1)) return false;
    out = std::move(dict);
    return true;
  }
  if (c == '-' || (c >= '0' && c <= '9')) return parseNumber(cursor, out);
  // Anything else the printer wrote came from an OpaqueAttr.
  std::string_view text = cursor.balancedUntil(",}])");
  if (text.empty()) return cursor.fail("an attribute value");
  out = OpaqueAttr{"builtin", std::string(text)};
  return true;
}

bool parseDictAt(TextCursor& cursor, NamedAttrs& out, int depth) {
  if (depth > kMaxAttrDepth) return cursor.fail("an attribute nested less deeply");
  if (!cursor.expect("{")) return false;
  out.clear();
  if (cursor.consume("}")) return true;
  do {
    std::string name;
    if (cursor.peek() == '"') {
      if (!cursor.quoted(name)) return false;
    } else {
      auto word = cursor.word();
      if (!word) return cursor.fail("an attribute name");
      name = *word;
    }
    Attribute value = UnitAttr{};
    if (cursor.consume("=") && !parseAttributeAt(cursor, value, depth + 1)) return false;
    out.emplace_back(std::move(name), std::move(value));
  } while (cursor.consume(","));
  return cursor.expect("}");
}

}  // namespace

bool parseAttribute(TextCursor& cursor, Attribute& out) {
  return parseAttributeAt(cursor, out, 0);
}

bool parseAttrDict(TextCursor& cursor, NamedAttrs& out) {
  return parseDictAt(cursor, out, 0);
}

}  // namespace jft::ir
