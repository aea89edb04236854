#include "ir/attribute_printer.h"

#include <algorithm>
#include <cstdio>
#include <string_view>
#include <type_traits>

#include "ir/attribute_fields.h"
#include "ir/float_text.h"
#include "support/text.h"

namespace jft::ir {
namespace {

uint64_t readLittleEndian(const uint8_t* bytes, int64_t count) {
  uint64_t value = 0;
  for (int64_t i = count - 1; i >= 0; --i) value = (value << 8) | bytes[i];
  return value;
}

std::string integerText(ElementType type, uint64_t raw) {
  const int bits = bitWidth(type);
  if (bits < 64) raw &= (uint64_t{1} << bits) - 1;
  if (!isSignedInteger(type)) return std::to_string(raw);
  // Sign-extend from the type's own width (i4 lives in the low bits of a byte).
  const int unused = 64 - bits;
  const int64_t value = static_cast<int64_t>(raw << unused) >> unused;
  return std::to_string(value);
}

std::string elementText(ElementType type, const uint8_t* bytes) {
  const int64_t size = storageBytes(type);
  if (isPred(type)) return bytes[0] ? "true" : "false";
  if (isComplex(type)) {
    const ElementType part = complexComponent(type);
    const int64_t half = size / 2;
    return "(" + formatFloatBits(part, readLittleEndian(bytes, half)) + "," +
           formatFloatBits(part, readLittleEndian(bytes + half, half)) + ")";
  }
  const uint64_t raw = readLittleEndian(bytes, size);
  if (isFloat(type)) return formatFloatBits(type, raw);
  return integerText(type, raw);
}

// Elements [index, index + count of this level) as nested brackets.
void appendNested(const DenseElements& dense, size_t dim, int64_t& index,
                  std::string& out) {
  if (dim == dense.type.dims.size()) {
    out += elementText(dense.type.element, dense.element(index).data());
    ++index;
    return;
  }
  out += '[';
  for (int64_t i = 0; i < dense.type.dims[dim]; ++i) {
    if (i) out += ", ";
    appendNested(dense, dim + 1, index, out);
  }
  out += ']';
}

std::string intList(const std::vector<int64_t>& values) {
  return intListText(values);
}

// `name = [..]` fields of the #stablehlo.dot/gather/scatter structs; empty
// lists are left out, as StableHLO prints them.
void appendListField(std::string& out, std::string_view name,
                     const std::vector<int64_t>& values) {
  if (values.empty()) return;
  if (out.back() != '<') out += ", ";
  out += std::string(name) + " = " + intList(values);
}

// `#stablehlo.x<` and the fields of AttrFields<T>: lists when not empty,
// integers always.
template <typename T>
std::string fieldsText(std::string out, const T& value) {
  for (const ListField<T>& field : AttrFields<T>::lists)
    appendListField(out, field.name, value.*field.member);
  for (const IntField<T>& field : AttrFields<T>::ints) {
    if (out.back() != '<') out += ", ";
    out += std::string(field.name) + " = " + std::to_string(value.*field.member);
  }
  return out + ">";
}

std::string convLayout(int64_t batch, int64_t feature,
                       const std::vector<int64_t>& spatial, std::string_view batch_label,
                       std::string_view feature_label) {
  std::vector<std::string> labels(spatial.size() + 2, "?");
  auto place = [&](int64_t dim, std::string label) {
    if (dim >= 0 && dim < static_cast<int64_t>(labels.size()))
      labels[dim] = std::move(label);
  };
  place(batch, std::string(batch_label));
  place(feature, std::string(feature_label));
  for (size_t i = 0; i < spatial.size(); ++i) place(spatial[i], std::to_string(i));
  std::string out = "[";
  for (size_t i = 0; i < labels.size(); ++i) out += (i ? ", " : "") + labels[i];
  return out + "]";
}

std::string enumAttr(std::string_view kind, std::string_view value) {
  return "#stablehlo<" + std::string(kind) + " " + std::string(value) + ">";
}

std::string scalarTypeText(const Type& type) {
  if (type.isTensor() && type.dims.empty())
    return std::string(elementTypeName(type.element));
  return type.str();
}

// Enum names below tolerate values outside the enum: attributes may come
// from damaged input, and printing must still not read out of bounds.
template <size_t N>
std::string_view nameAt(const std::string_view (&names)[N], int index) {
  return index >= 0 && index < static_cast<int>(N) ? names[index] : "?";
}

// Whether an enum holds one of its first `max` + 1 values (ir's name
// tables index by value without a check).
template <typename E>
bool inRange(E value, int max) {
  return static_cast<int>(value) >= 0 && static_cast<int>(value) <= max;
}

std::string_view rngAlgorithmName(RngAlgorithm a) {
  constexpr std::string_view kNames[] = {"DEFAULT", "THREE_FRY", "PHILOX"};
  return nameAt(kNames, static_cast<int>(a));
}

std::string_view rngDistributionName(RngDistribution d) {
  return d == RngDistribution::NORMAL ? "NORMAL" : "UNIFORM";
}

std::string_view transposeName(Transpose t) {
  constexpr std::string_view kNames[] = {"TRANSPOSE_INVALID", "NO_TRANSPOSE", "TRANSPOSE",
                                         "ADJOINT"};
  return nameAt(kNames, static_cast<int>(t));
}

std::string_view accuracyModeName(ResultAccuracyMode m) {
  constexpr std::string_view kNames[] = {"DEFAULT", "HIGHEST", "TOLERANCE"};
  return nameAt(kNames, static_cast<int>(m));
}

struct AttributeText {
  const PrintOptions& options;

  std::string operator()(UnitAttr) const { return "unit"; }
  std::string operator()(bool b) const { return b ? "true" : "false"; }
  std::string operator()(int64_t v) const { return std::to_string(v); }
  std::string operator()(double v) const { return formatDouble(v); }
  std::string operator()(const std::string& s) const { return quoteString(s); }
  std::string operator()(const std::vector<int64_t>& values) const {
    std::string out = "array<i64";
    for (size_t i = 0; i < values.size(); ++i)
      out += (i ? ", " : ": ") + std::to_string(values[i]);
    return out + ">";
  }
  std::string operator()(const std::vector<bool>& values) const {
    std::string out = "array<i1";
    for (size_t i = 0; i < values.size(); ++i)
      out += std::string(i ? ", " : ": ") + (values[i] ? "true" : "false");
    return out + ">";
  }
  std::string operator()(const DenseElements& d) const {
    return printDenseLiteral(d, options) + " : " + d.type.str();
  }
  std::string operator()(const Type& t) const { return t.str(); }
  std::string operator()(const SymbolRef& s) const { return "@" + s.name; }
  std::string operator()(ComparisonDirection d) const {
    return enumAttr("comparison_direction",
                    inRange(d, 5) ? comparisonDirectionName(d) : "?");
  }
  std::string operator()(ComparisonType t) const {
    return enumAttr("comparison_type", inRange(t, 4) ? comparisonTypeName(t) : "?");
  }
  std::string operator()(const std::vector<Precision>& values) const {
    std::string out = "[";
    for (size_t i = 0; i < values.size(); ++i)
      out +=
          (i ? ", " : "") +
          enumAttr("precision", inRange(values[i], 2) ? precisionName(values[i]) : "?");
    return out + "]";
  }
  std::string operator()(FftType t) const {
    return enumAttr("fft_type", inRange(t, 3) ? fftTypeName(t) : "?");
  }
  std::string operator()(RngAlgorithm a) const {
    return enumAttr("rng_algorithm", rngAlgorithmName(a));
  }
  std::string operator()(RngDistribution d) const {
    return enumAttr("rng_distribution", rngDistributionName(d));
  }
  std::string operator()(Transpose t) const {
    return enumAttr("transpose", transposeName(t));
  }
  std::string operator()(CustomCallApiVersion v) const {
    // StableHLO keeps api_version as a plain i32.
    return std::to_string(static_cast<int>(v)) + " : i32";
  }
  std::string operator()(const DotDimensionNumbers& d) const {
    return fieldsText("#stablehlo.dot<", d);
  }

  std::string operator()(const DotAlgorithm& a) const {
    return "#stablehlo.dot_algorithm<lhs_precision_type = " +
           scalarTypeText(a.lhs_precision_type) +
           ", rhs_precision_type = " + scalarTypeText(a.rhs_precision_type) +
           ", accumulation_type = " + scalarTypeText(a.accumulation_type) +
           ", lhs_component_count = " + std::to_string(a.lhs_component_count) +
           ", rhs_component_count = " + std::to_string(a.rhs_component_count) +
           ", num_primitive_operations = " + std::to_string(a.num_primitive_operations) +
           ", allow_imprecise_accumulation = " +
           (a.allow_imprecise_accumulation ? "true" : "false") + ">";
  }
  std::string operator()(const ConvDimensionNumbers& c) const {
    return "#stablehlo.conv<" +
           convLayout(c.input_batch_dim, c.input_feature_dim, c.input_spatial_dims, "b",
                      "f") +
           "x" +
           convLayout(c.kernel_input_feature_dim, c.kernel_output_feature_dim,
                      c.kernel_spatial_dims, "i", "o") +
           "->" +
           convLayout(c.output_batch_dim, c.output_feature_dim, c.output_spatial_dims,
                      "b", "f") +
           ">";
  }
  std::string operator()(const GatherDimensionNumbers& g) const {
    return fieldsText("#stablehlo.gather<", g);
  }

  std::string operator()(const ScatterDimensionNumbers& s) const {
    return fieldsText("#stablehlo.scatter<", s);
  }

  std::string operator()(const ResultAccuracy& r) const {
    return "#stablehlo.result_accuracy<atol = " + formatDouble(r.atol) +
           ", rtol = " + formatDouble(r.rtol) + ", ulps = " + std::to_string(r.ulps) +
           ", mode = #stablehlo.result_accuracy_mode<" +
           std::string(accuracyModeName(r.mode)) + ">>";
  }
  std::string operator()(const ChannelHandle& c) const {
    return "#stablehlo.channel_handle<handle = " + std::to_string(c.handle) +
           ", type = " + std::to_string(c.type) + ">";
  }
  std::string operator()(const std::vector<OutputOperandAlias>& aliases) const {
    std::string out = "[";
    for (size_t i = 0; i < aliases.size(); ++i) {
      const OutputOperandAlias& a = aliases[i];
      out += std::string(i ? ", " : "") +
             "#stablehlo.output_operand_alias<output_tuple_indices = " +
             intList(a.output_tuple_indices) +
             ", operand_index = " + std::to_string(a.operand_index) +
             ", operand_tuple_indices = " + intList(a.operand_tuple_indices) + ">";
    }
    return out + "]";
  }
  std::string operator()(const AttrList& list) const {
    std::string out = "[";
    for (size_t i = 0; i < list.size(); ++i)
      out += (i ? ", " : "") + printAttribute(list[i], options);
    return out + "]";
  }
  std::string operator()(const NamedAttrs& attrs) const {
    return printAttrDict(attrs, options);
  }
  std::string operator()(const OpaqueAttr& o) const {
    if (!o.text.empty()) return o.text;
    return "#" + o.dialect + "<?>";
  }
};

}  // namespace

std::string printAttribute(const Attribute& attr, const PrintOptions& options) {
  return std::visit(AttributeText{options}, attr.value);
}

std::string printDenseLiteral(const DenseElements& dense, const PrintOptions& options) {
  if (!dense.type.isTensor()) return "dense<?not a tensor>";
  const int64_t count = dense.type.numElements();
  if (!dense.wellFormed())
    return "dense<?" + std::to_string(dense.bytes.size()) + " bytes for " +
           std::to_string(count) + " elements" + (dense.splat ? " (splat)>" : ">");
  if (count == 0) return "dense<>";
  // MLIR's spelling of a splat; a spelled-out literal of equal elements too.
  if (dense.allEqual())
    return "dense<" + elementText(dense.type.element, dense.element(0).data()) + ">";
  if (options.max_dense_elements >= 0 && count > options.max_dense_elements)
    return "dense<...> (" + std::to_string(count) + " elements)";
  std::string out = "dense<";
  int64_t index = 0;
  appendNested(dense, 0, index, out);
  return out + ">";
}

std::string printAttrDict(const NamedAttrs& attrs, const PrintOptions& options) {
  std::vector<const std::pair<std::string, Attribute>*> sorted;
  for (const auto& entry : attrs) sorted.push_back(&entry);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto* a, const auto* b) { return a->first < b->first; });
  std::string out = "{";
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (i) out += ", ";
    out += sorted[i]->first;
    if (!sorted[i]->second.is<UnitAttr>())
      out += " = " + printAttribute(sorted[i]->second, options);
  }
  return out + "}";
}

namespace {

std::string locationText(const LocationTable& table, LocId id, int depth) {
  if (depth > 64 || id >= table.size()) return "?";
  const Location& loc = table.get(id);
  switch (loc.kind) {
    case Location::Kind::Unknown:
      return "unknown";
    case Location::Kind::File: {
      std::string out = quoteString(loc.text) + ":" + std::to_string(loc.line) + ":" +
                        std::to_string(loc.col);
      // MLIR's range spelling: the end line is left out when it is the start's.
      if (loc.end_line == 0 && loc.end_col == 0) return out;
      if (loc.end_line == loc.line && loc.end_col == loc.col) return out;
      if (loc.end_line == loc.line) return out + " to :" + std::to_string(loc.end_col);
      return out + " to " + std::to_string(loc.end_line) + ":" +
             std::to_string(loc.end_col);
    }
    case Location::Kind::Name: {
      std::string out = quoteString(loc.text);
      if (!loc.children.empty())
        out += "(" + locationText(table, loc.children[0], depth + 1) + ")";
      return out;
    }
    case Location::Kind::CallSite: {
      if (loc.children.size() != 2) return "callsite(?)";
      return "callsite(" + locationText(table, loc.children[0], depth + 1) + " at " +
             locationText(table, loc.children[1], depth + 1) + ")";
    }
    case Location::Kind::Fused: {
      std::string out = "fused[";
      for (size_t i = 0; i < loc.children.size(); ++i)
        out += (i ? ", " : "") + locationText(table, loc.children[i], depth + 1);
      return out + "]";
    }
  }
  return "?";
}

}  // namespace

std::string printLocation(const LocationTable& table, LocId id) {
  return locationText(table, id, 0);
}

std::string printUserFrame(const LocationTable& table, LocId id) {
  auto frame = table.userFrame(id);
  if (!frame) return "unknown";
  return quoteString(frame->file) + ":" + std::to_string(frame->line) + ":" +
         std::to_string(frame->col);
}

std::string quoteString(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c < 0x20 || c >= 0x7f) {
      char hex[4];
      std::snprintf(hex, sizeof hex, "\\%02X", c);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

}  // namespace jft::ir
