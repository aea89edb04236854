#include "attr_compare.h"

#include <cmath>
#include <iterator>
#include <variant>

#include "dense_compare.h"
#include "text_attr.h"
#include "text_split.h"

namespace jft::conformance {
namespace {

std::string listText(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// Which alternative an IR attribute holds, for messages; in the order of
// ir::Attribute::Value (a newer alternative shows as its index).
std::string heldKind(const ir::Attribute& attr) {
  static const char* const kNames[] = {"unit",
                                       "bool",
                                       "int64",
                                       "double",
                                       "string",
                                       "int list",
                                       "bool list",
                                       "dense elements",
                                       "type",
                                       "symbol ref",
                                       "comparison direction",
                                       "comparison type",
                                       "precision list",
                                       "fft type",
                                       "rng algorithm",
                                       "rng distribution",
                                       "transpose",
                                       "api version",
                                       "dot dimension numbers",
                                       "dot algorithm",
                                       "conv dimension numbers",
                                       "gather dimension numbers",
                                       "scatter dimension numbers",
                                       "result accuracy",
                                       "channel handle",
                                       "output operand aliases",
                                       "attribute list",
                                       "dictionary",
                                       "opaque attribute"};
  size_t index = attr.value.index();
  if (index < std::size(kNames)) return kNames[index];
  return "alternative " + std::to_string(index);
}

template <typename T>
std::optional<std::string> expectEqual(const ir::Attribute& attr, const T& expected,
                                       const std::string& shown) {
  if (!attr.is<T>()) return "expected " + shown + ", import holds " + heldKind(attr);
  if (attr.as<T>() == expected) return std::nullopt;
  return "expected " + shown + ", import differs";
}

std::optional<std::string> compareIntList(const std::vector<int64_t>& expected,
                                          const ir::Attribute& attr) {
  if (!attr.is<std::vector<int64_t>>())
    return "expected " + listText(expected) + ", import holds " + heldKind(attr);
  const auto& got = attr.as<std::vector<int64_t>>();
  if (got == expected) return std::nullopt;
  return "expected " + listText(expected) + ", import has " + listText(got);
}

std::vector<int64_t> intField(const DialectStruct& s, std::string_view name) {
  const TextAttr* f = s.field(name);
  if (!f) return {};
  return parseIntArray(f->value).value_or(std::vector<int64_t>{});
}

int64_t scalarField(const DialectStruct& s, std::string_view name) {
  const TextAttr* f = s.field(name);
  return f ? parseInteger(f->value).value_or(-1) : 0;
}

std::optional<std::string> compareStruct(const DialectStruct& s, const std::string& text,
                                         const ir::Attribute& attr) {
  if (s.kind == "dot") {
    ir::DotDimensionNumbers d;
    d.lhs_batching_dims = intField(s, "lhs_batching_dimensions");
    d.rhs_batching_dims = intField(s, "rhs_batching_dimensions");
    d.lhs_contracting_dims = intField(s, "lhs_contracting_dimensions");
    d.rhs_contracting_dims = intField(s, "rhs_contracting_dimensions");
    return expectEqual(attr, d, text);
  }
  if (s.kind == "gather") {
    ir::GatherDimensionNumbers g;
    g.offset_dims = intField(s, "offset_dims");
    g.collapsed_slice_dims = intField(s, "collapsed_slice_dims");
    g.operand_batching_dims = intField(s, "operand_batching_dims");
    g.start_indices_batching_dims = intField(s, "start_indices_batching_dims");
    g.start_index_map = intField(s, "start_index_map");
    g.index_vector_dim = scalarField(s, "index_vector_dim");
    return expectEqual(attr, g, text);
  }
  if (s.kind == "scatter") {
    ir::ScatterDimensionNumbers g;
    g.update_window_dims = intField(s, "update_window_dims");
    g.inserted_window_dims = intField(s, "inserted_window_dims");
    g.input_batching_dims = intField(s, "input_batching_dims");
    g.scatter_indices_batching_dims = intField(s, "scatter_indices_batching_dims");
    g.scatter_dims_to_operand_dims = intField(s, "scatter_dims_to_operand_dims");
    g.index_vector_dim = scalarField(s, "index_vector_dim");
    return expectEqual(attr, g, text);
  }
  return std::nullopt;
}

std::optional<std::string> compareConv(const ConvLayout& l, const std::string& text,
                                       const ir::Attribute& attr) {
  ir::ConvDimensionNumbers c;
  c.input_batch_dim = l.input_batch;
  c.input_feature_dim = l.input_feature;
  c.input_spatial_dims = l.input_spatial;
  c.kernel_input_feature_dim = l.kernel_input_feature;
  c.kernel_output_feature_dim = l.kernel_output_feature;
  c.kernel_spatial_dims = l.kernel_spatial;
  c.output_batch_dim = l.output_batch;
  c.output_feature_dim = l.output_feature;
  c.output_spatial_dims = l.output_spatial;
  return expectEqual(attr, c, text);
}

// Enum spellings of the StableHLO dialect: the text's word must be the name
// the IR's enumerator stands for.
std::optional<std::string> compareEnum(const DialectEnum& e, const ir::Attribute& attr) {
  std::string got;
  if (e.kind == "comparison_direction" && attr.is<ir::ComparisonDirection>()) {
    got = ir::comparisonDirectionName(attr.as<ir::ComparisonDirection>());
  } else if (e.kind == "comparison_type" && attr.is<ir::ComparisonType>()) {
    got = ir::comparisonTypeName(attr.as<ir::ComparisonType>());
  } else if (e.kind == "fft_type" && attr.is<ir::FftType>()) {
    got = ir::fftTypeName(attr.as<ir::FftType>());
  } else if (e.kind == "transpose" && attr.is<ir::Transpose>()) {
    static const char* const kNames[] = {"", "NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"};
    int v = static_cast<int>(attr.as<ir::Transpose>());
    got = v >= 1 && v <= 3 ? kNames[v] : "?";
  } else if (e.kind == "rng_algorithm" && attr.is<ir::RngAlgorithm>()) {
    static const char* const kNames[] = {"DEFAULT", "THREE_FRY", "PHILOX"};
    got = kNames[static_cast<int>(attr.as<ir::RngAlgorithm>()) % 3];
  } else if (e.kind == "rng_distribution" && attr.is<ir::RngDistribution>()) {
    got = attr.as<ir::RngDistribution>() == ir::RngDistribution::UNIFORM ? "UNIFORM"
                                                                         : "NORMAL";
  } else if (e.kind == "comparison_direction" || e.kind == "comparison_type" ||
             e.kind == "fft_type" || e.kind == "transpose" || e.kind == "rng_algorithm" ||
             e.kind == "rng_distribution") {
    return "expected " + e.kind + " " + e.value + ", import holds " + heldKind(attr);
  } else {
    return std::nullopt;  // an enum this test does not interpret
  }
  if (got == e.value) return std::nullopt;
  return "expected " + e.value + ", import has " + got;
}

// "[#stablehlo<precision DEFAULT>, ...]"
std::optional<std::string> comparePrecisions(const std::string& text,
                                             const ir::Attribute& attr) {
  std::string_view inner = trimSpace(text);
  inner = inner.substr(1, inner.size() - 2);
  std::vector<std::string> expected;
  if (!trimSpace(inner).empty())
    for (std::string_view part : splitTopLevel(inner)) {
      std::optional<DialectEnum> e = parseDialectEnum(part);
      if (!e || e->kind != "precision") return std::nullopt;
      expected.push_back(e->value);
    }
  if (!attr.is<std::vector<ir::Precision>>())
    return "expected " + text + ", import holds " + heldKind(attr);
  const auto& got = attr.as<std::vector<ir::Precision>>();
  bool same = got.size() == expected.size();
  for (size_t i = 0; same && i < got.size(); ++i)
    same = ir::precisionName(got[i]) == expected[i];
  if (same) return std::nullopt;
  std::string shown;
  for (ir::Precision p : got)
    shown += std::string(shown.empty() ? "" : ", ") + std::string(ir::precisionName(p));
  return "expected " + text + ", import has [" + shown + "]";
}

std::optional<std::string> compareInteger(int64_t expected, const ir::Attribute& attr) {
  std::optional<int64_t> got;
  if (attr.is<int64_t>()) got = attr.as<int64_t>();
  if (attr.is<ir::CustomCallApiVersion>())
    got = static_cast<int64_t>(attr.as<ir::CustomCallApiVersion>());
  if (!got)
    return "expected " + std::to_string(expected) + ", import holds " + heldKind(attr);
  if (*got == expected) return std::nullopt;
  return "expected " + std::to_string(expected) + ", import has " + std::to_string(*got);
}

}  // namespace

std::optional<std::string> attributeMismatch(const std::string& text,
                                             const ir::Attribute& attr) {
  if (std::optional<TextDense> dense = parseDense(text)) {
    if (!attr.is<ir::DenseElements>())
      return "expected " + text + ", import holds " + heldKind(attr);
    std::optional<std::string> problem =
        denseMismatch(*dense, attr.as<ir::DenseElements>());
    if (problem) return "dense literal: " + *problem;
    return std::nullopt;
  }
  if (std::optional<std::vector<bool>> bools = parseBoolArray(text))
    return expectEqual(attr, *bools, text);
  if (std::optional<std::vector<int64_t>> ints = parseIntArray(text))
    return compareIntList(*ints, attr);
  if (std::optional<bool> b = parseBool(text)) return expectEqual(attr, *b, text);
  if (std::optional<int64_t> i = parseInteger(text)) return compareInteger(*i, attr);
  if (std::optional<double> f = parseFloat(text)) {
    if (!attr.is<double>())
      return "expected " + text + ", import holds " + heldKind(attr);
    // The text rounds to the attribute's type; compare at f32 precision.
    if (static_cast<float>(attr.as<double>()) == static_cast<float>(*f))
      return std::nullopt;
    return "expected " + text + ", import has " + std::to_string(attr.as<double>());
  }
  if (std::optional<std::string> s = parseStringLiteral(text))
    return expectEqual(attr, *s, text);
  if (std::optional<std::string> sym = parseSymbolRef(text))
    return expectEqual(attr, ir::SymbolRef{*sym}, text);
  if (std::optional<ConvLayout> conv = parseConvLayout(text))
    return compareConv(*conv, text, attr);
  if (std::optional<DialectEnum> e = parseDialectEnum(text);
      e && text.find('=') == std::string::npos)
    return compareEnum(*e, attr);
  if (std::optional<DialectStruct> s = parseDialectStruct(text))
    return compareStruct(*s, text, attr);
  if (text.starts_with("[#stablehlo<precision")) return comparePrecisions(text, attr);
  return std::nullopt;
}

}  // namespace jft::conformance
