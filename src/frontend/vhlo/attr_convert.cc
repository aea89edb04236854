#include "frontend/vhlo/attr_convert.h"

#include <cctype>

#include "frontend/vhlo/dense.h"
#include "frontend/vhlo/types.h"

namespace jft::frontend::vhlo {
namespace {

// Arrays of dictionaries of arrays... deeper than this are malformed.
constexpr int kMaxAttrDepth = 64;

std::string kindName(MAttr::Kind kind) {
  switch (kind) {
    case MAttr::Kind::Unit:
      return "unit";
    case MAttr::Kind::Bool:
      return "bool";
    case MAttr::Kind::Integer:
      return "integer";
    case MAttr::Kind::Float:
      return "float";
    case MAttr::Kind::String:
      return "string";
    case MAttr::Kind::Array:
      return "array";
    case MAttr::Kind::Dictionary:
      return "dictionary";
    case MAttr::Kind::TypeAttr:
      return "type";
    case MAttr::Kind::DenseElements:
      return "dense elements";
    case MAttr::Kind::DenseArray:
      return "dense array";
    case MAttr::Kind::DenseString:
      return "dense string";
    case MAttr::Kind::SymbolRef:
      return "symbol reference";
    case MAttr::Kind::Enum:
      return "enum";
    case MAttr::Kind::Struct:
      return "struct";
    case MAttr::Kind::IntList:
      return "integer list";
    case MAttr::Kind::Location:
      return "location";
    case MAttr::Kind::Opaque:
      return "opaque";
  }
  return "unknown";
}

Status missing(std::string_view name, const OpSite& site) {
  return site.invalid("missing attribute '" + std::string(name) + "'");
}

Status wrongKind(const MAttr& attr, std::string_view name, std::string_view expected,
                 const OpSite& site) {
  return site.invalid("attribute '" + std::string(name) + "' must be " +
                      std::string(expected) + ", got " + kindName(attr.kind) +
                      (attr.name.empty() ? "" : " " + attr.name));
}

// Dense decoding errors then read "vhlo.constant_v1 attribute 'value': ...".
OpSite attrSite(std::string_view name, const OpSite& site) {
  return OpSite{site.op + " attribute '" + std::string(name) + "'", site.where};
}

// The best text a foreign attribute has: its textual form, its name, or
// else its dialect-encoded bytes in hex ("0x150B81...") so nothing is lost.
std::string opaqueText(const MAttr& attr) {
  if (!attr.str.empty()) return attr.str;
  if (!attr.name.empty() || attr.data.empty()) return attr.name;
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string text = "0x";
  for (uint8_t byte : attr.data) {
    text += kHex[byte >> 4];
    text += kHex[byte & 15];
  }
  return text;
}

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string normalizedField(std::string_view field) {
  std::string out;
  for (char c : field)
    if (c != '_') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool isEnum(const MAttr& attr, const EnumSpec& spec) {
  return attr.kind == MAttr::Kind::Enum && endsWith(attr.name, spec.name);
}

bool isStruct(const MAttr& attr, std::string_view name) {
  return attr.kind == MAttr::Kind::Struct && endsWith(attr.name, name);
}

StatusOr<ir::Attribute> convertAt(const MAttr* attr, std::string_view name,
                                  const OpSite& site, int depth);

StatusOr<ir::Attribute> convertEnum(const MAttr& attr, std::string_view name,
                                    const OpSite& site) {
  auto as = [&](const EnumSpec& spec) { return readEnum(&attr, name, spec, site); };
  if (isEnum(attr, kComparisonDirectionEnum)) {
    JFT_ASSIGN_OR_RETURN(int64_t v, as(kComparisonDirectionEnum));
    return ir::Attribute(static_cast<ir::ComparisonDirection>(v));
  }
  if (isEnum(attr, kComparisonTypeEnum)) {
    JFT_ASSIGN_OR_RETURN(int64_t v, as(kComparisonTypeEnum));
    return ir::Attribute(static_cast<ir::ComparisonType>(v));
  }
  if (isEnum(attr, kPrecisionEnum)) {
    JFT_ASSIGN_OR_RETURN(int64_t v, as(kPrecisionEnum));
    return ir::Attribute(std::vector<ir::Precision>{static_cast<ir::Precision>(v)});
  }
  if (isEnum(attr, kFftTypeEnum)) {
    JFT_ASSIGN_OR_RETURN(int64_t v, as(kFftTypeEnum));
    return ir::Attribute(static_cast<ir::FftType>(v));
  }
  if (isEnum(attr, kRngAlgorithmEnum)) {
    JFT_ASSIGN_OR_RETURN(int64_t v, as(kRngAlgorithmEnum));
    return ir::Attribute(static_cast<ir::RngAlgorithm>(v));
  }
  if (isEnum(attr, kRngDistributionEnum)) {
    JFT_ASSIGN_OR_RETURN(int64_t v, as(kRngDistributionEnum));
    return ir::Attribute(static_cast<ir::RngDistribution>(v));
  }
  if (isEnum(attr, kTransposeEnum)) {
    JFT_ASSIGN_OR_RETURN(int64_t v, as(kTransposeEnum));
    return ir::Attribute(static_cast<ir::Transpose>(v));
  }
  if (isEnum(attr, kApiVersionEnum)) {
    JFT_ASSIGN_OR_RETURN(int64_t v, as(kApiVersionEnum));
    return ir::Attribute(static_cast<ir::CustomCallApiVersion>(v));
  }
  return ir::Attribute(ir::OpaqueAttr{attr.dialect.empty() ? "vhlo" : attr.dialect,
                                      attr.name + " " + std::to_string(attr.int_value)});
}

StatusOr<ir::Attribute> convertArray(const MAttr& attr, std::string_view name,
                                     const OpSite& site, int depth) {
  bool all_precisions = !attr.elements.empty();
  bool all_aliases = !attr.elements.empty();
  for (const MAttrPtr& e : attr.elements) {
    all_precisions = all_precisions && e && isEnum(*e, kPrecisionEnum);
    all_aliases = all_aliases && e && isStruct(*e, "output_operand_alias_v1");
  }
  if (all_precisions) {
    JFT_ASSIGN_OR_RETURN(auto precisions, readPrecisions(&attr, name, site));
    return ir::Attribute(std::move(precisions));
  }
  if (all_aliases) {
    JFT_ASSIGN_OR_RETURN(auto aliases, readAliases(&attr, name, site));
    return ir::Attribute(std::move(aliases));
  }
  ir::AttrList list;
  for (const MAttrPtr& e : attr.elements) {
    JFT_ASSIGN_OR_RETURN(ir::Attribute converted,
                         convertAt(e.get(), name, site, depth + 1));
    list.push_back(std::move(converted));
  }
  return ir::Attribute(std::move(list));
}

StatusOr<ir::NamedAttrs> convertEntries(
    const std::vector<std::pair<std::string, MAttrPtr>>& entries, const OpSite& site,
    int depth) {
  ir::NamedAttrs out;
  for (const auto& [key, value] : entries) {
    JFT_ASSIGN_OR_RETURN(ir::Attribute converted,
                         convertAt(value.get(), key, site, depth + 1));
    out.emplace_back(key, std::move(converted));
  }
  return out;
}

StatusOr<ir::Attribute> convertDenseGeneric(const MAttr& attr, std::string_view name,
                                            const OpSite& site) {
  const MType* element =
      attr.type && !attr.type->elements.empty() ? attr.type->elements[0].get() : nullptr;
  // Layout-like index tensors have no ir element type: keep their values.
  if (element && element->kind == MType::Kind::Index) {
    JFT_ASSIGN_OR_RETURN(std::vector<int64_t> values, readInts(&attr, name, site));
    return ir::Attribute(std::move(values));
  }
  JFT_ASSIGN_OR_RETURN(ir::DenseElements dense, readDense(&attr, name, site));
  return ir::Attribute(std::move(dense));
}

StatusOr<ir::Attribute> convertDenseArray(const MAttr& attr, std::string_view name,
                                          const OpSite& site) {
  const MType* element = attr.type.get();
  if (element && element->kind == MType::Kind::Integer && element->width == 1) {
    JFT_ASSIGN_OR_RETURN(std::vector<bool> values, readBools(&attr, name, site));
    return ir::Attribute(std::move(values));
  }
  if (element &&
      (element->kind == MType::Kind::Integer || element->kind == MType::Kind::Index)) {
    JFT_ASSIGN_OR_RETURN(std::vector<int64_t> values, readInts(&attr, name, site));
    return ir::Attribute(std::move(values));
  }
  return ir::Attribute(ir::OpaqueAttr{"builtin", "array<" + describeType(element) + ">"});
}

StatusOr<ir::Attribute> convertAt(const MAttr* attr, std::string_view name,
                                  const OpSite& site, int depth) {
  if (!attr) return missing(name, site);
  if (depth > kMaxAttrDepth)
    return site.invalid("attribute '" + std::string(name) + "' is nested too deeply");
  switch (attr->kind) {
    case MAttr::Kind::Unit:
      return ir::Attribute(ir::UnitAttr{});
    case MAttr::Kind::Bool:
      return ir::Attribute(attr->int_value != 0);
    case MAttr::Kind::Integer:
      return ir::Attribute(attr->int_value);
    case MAttr::Kind::Float:
      return ir::Attribute(attr->float_value);
    case MAttr::Kind::String:
      return ir::Attribute(attr->str);
    case MAttr::Kind::Array:
      return convertArray(*attr, name, site, depth);
    case MAttr::Kind::Dictionary: {
      JFT_ASSIGN_OR_RETURN(ir::NamedAttrs entries,
                           convertEntries(attr->entries, site, depth));
      return ir::Attribute(std::move(entries));
    }
    case MAttr::Kind::TypeAttr: {
      auto type = convertType(attr->type.get(), site);
      if (type.isOk()) return ir::Attribute(std::move(type).value());
      // Function types and the like have no ir form; keep them readable.
      return ir::Attribute(ir::OpaqueAttr{"builtin", describeType(attr->type.get())});
    }
    case MAttr::Kind::DenseElements:
      return convertDenseGeneric(*attr, name, site);
    case MAttr::Kind::DenseArray:
      return convertDenseArray(*attr, name, site);
    case MAttr::Kind::DenseString: {
      ir::AttrList list;
      for (const std::string& s : attr->strings) list.push_back(ir::Attribute(s));
      return ir::Attribute(std::move(list));
    }
    case MAttr::Kind::SymbolRef: {
      std::string full = attr->str;
      for (const MAttrPtr& nested : attr->elements)
        if (nested) full += "::" + nested->str;
      return ir::Attribute(ir::SymbolRef{full});
    }
    case MAttr::Kind::Enum:
      return convertEnum(*attr, name, site);
    case MAttr::Kind::Struct: {
      if (isStruct(*attr, "result_accuracy_v1")) {
        JFT_ASSIGN_OR_RETURN(ir::ResultAccuracy ra, readResultAccuracy(attr, name, site));
        return ir::Attribute(ra);
      }
      if (isStruct(*attr, "output_operand_alias_v1")) {
        MAttr wrapper;
        wrapper.kind = MAttr::Kind::Array;
        wrapper.elements.push_back(std::make_shared<MAttr>(*attr));
        JFT_ASSIGN_OR_RETURN(auto aliases, readAliases(&wrapper, name, site));
        return ir::Attribute(std::move(aliases));
      }
      JFT_ASSIGN_OR_RETURN(ir::NamedAttrs fields,
                           convertEntries(attr->entries, site, depth));
      return ir::Attribute(std::move(fields));
    }
    case MAttr::Kind::IntList:
      return ir::Attribute(attr->ints);
    case MAttr::Kind::Location:
      return ir::Attribute(ir::OpaqueAttr{"builtin", "loc"});
    case MAttr::Kind::Opaque:
      return ir::Attribute(ir::OpaqueAttr{attr->dialect, opaqueText(*attr)});
  }
  return ir::Attribute(ir::OpaqueAttr{attr->dialect, attr->name});
}

}  // namespace

const MAttr* structField(const MAttr& attr, std::string_view field) {
  const std::string wanted = normalizedField(field);
  for (const auto& [key, value] : attr.entries)
    if (normalizedField(key) == wanted) return value.get();
  return nullptr;
}

StatusOr<int64_t> readInt(const MAttr* attr, std::string_view name, const OpSite& site) {
  if (!attr) return missing(name, site);
  if (attr->kind != MAttr::Kind::Integer)
    return wrongKind(*attr, name, "an integer", site);
  return attr->int_value;
}

StatusOr<bool> readBool(const MAttr* attr, std::string_view name, const OpSite& site) {
  if (!attr) return missing(name, site);
  if (attr->kind == MAttr::Kind::Bool) return attr->int_value != 0;
  if (attr->kind == MAttr::Kind::Integer && attr->type &&
      attr->type->kind == MType::Kind::Integer && attr->type->width == 1)
    return attr->int_value != 0;
  return wrongKind(*attr, name, "a bool", site);
}

StatusOr<double> readFloat(const MAttr* attr, std::string_view name, const OpSite& site) {
  if (!attr) return missing(name, site);
  if (attr->kind != MAttr::Kind::Float) return wrongKind(*attr, name, "a float", site);
  return attr->float_value;
}

StatusOr<std::string> readString(const MAttr* attr, std::string_view name,
                                 const OpSite& site) {
  if (!attr) return missing(name, site);
  if (attr->kind != MAttr::Kind::String) return wrongKind(*attr, name, "a string", site);
  return attr->str;
}

StatusOr<std::string> readSymbol(const MAttr* attr, std::string_view name,
                                 const OpSite& site) {
  if (!attr) return missing(name, site);
  if (attr->kind != MAttr::Kind::String && attr->kind != MAttr::Kind::SymbolRef)
    return wrongKind(*attr, name, "a symbol name", site);
  if (attr->str.empty())
    return site.invalid("attribute '" + std::string(name) + "' is empty");
  return attr->str;
}

StatusOr<std::vector<int64_t>> readInts(const MAttr* attr, std::string_view name,
                                        const OpSite& site) {
  if (!attr) return missing(name, site);
  switch (attr->kind) {
    case MAttr::Kind::DenseElements:
    case MAttr::Kind::DenseArray: {
      auto values = decodeInts(*attr, attrSite(name, site));
      return values;
    }
    case MAttr::Kind::IntList:
      return attr->ints;
    case MAttr::Kind::Array: {
      std::vector<int64_t> values;
      for (const MAttrPtr& e : attr->elements) {
        JFT_ASSIGN_OR_RETURN(int64_t v, readInt(e.get(), name, site));
        values.push_back(v);
      }
      return values;
    }
    default:
      return wrongKind(*attr, name, "a list of integers", site);
  }
}

StatusOr<std::vector<bool>> readBools(const MAttr* attr, std::string_view name,
                                      const OpSite& site) {
  if (!attr) return missing(name, site);
  switch (attr->kind) {
    case MAttr::Kind::DenseElements:
    case MAttr::Kind::DenseArray: {
      auto values = decodeBools(*attr, attrSite(name, site));
      return values;
    }
    case MAttr::Kind::Array: {
      std::vector<bool> values;
      for (const MAttrPtr& e : attr->elements) {
        JFT_ASSIGN_OR_RETURN(bool v, readBool(e.get(), name, site));
        values.push_back(v);
      }
      return values;
    }
    default:
      return wrongKind(*attr, name, "a list of bools", site);
  }
}

StatusOr<ir::DenseElements> readDense(const MAttr* attr, std::string_view name,
                                      const OpSite& site) {
  if (!attr) return missing(name, site);
  if (attr->kind != MAttr::Kind::DenseElements)
    return wrongKind(*attr, name, "a dense tensor", site);
  return decodeDense(*attr, attrSite(name, site));
}

StatusOr<int64_t> readEnum(const MAttr* attr, std::string_view name, const EnumSpec& spec,
                           const OpSite& site) {
  if (!attr) return missing(name, site);
  if (attr->kind != MAttr::Kind::Enum ||
      (!attr->name.empty() && !endsWith(attr->name, spec.name)))
    return wrongKind(*attr, name, "a " + std::string(spec.name) + " enum", site);
  if (attr->int_value < spec.min || attr->int_value > spec.max)
    return site.invalid("attribute '" + std::string(name) + "' has invalid " +
                        std::string(spec.name) + " value " +
                        std::to_string(attr->int_value));
  return attr->int_value;
}

StatusOr<std::vector<ir::Precision>> readPrecisions(const MAttr* attr,
                                                    std::string_view name,
                                                    const OpSite& site) {
  if (!attr) return missing(name, site);
  if (attr->kind != MAttr::Kind::Array)
    return wrongKind(*attr, name, "an array of precisions", site);
  std::vector<ir::Precision> out;
  for (const MAttrPtr& e : attr->elements) {
    JFT_ASSIGN_OR_RETURN(int64_t v, readEnum(e.get(), name, kPrecisionEnum, site));
    out.push_back(static_cast<ir::Precision>(v));
  }
  return out;
}

StatusOr<ir::ResultAccuracy> readResultAccuracy(const MAttr* attr, std::string_view name,
                                                const OpSite& site) {
  if (!attr) return missing(name, site);
  if (attr->kind != MAttr::Kind::Struct)
    return wrongKind(*attr, name, "a result_accuracy_v1 struct", site);
  ir::ResultAccuracy out;
  JFT_ASSIGN_OR_RETURN(out.atol, readFloat(structField(*attr, "atol"), "atol", site));
  JFT_ASSIGN_OR_RETURN(out.rtol, readFloat(structField(*attr, "rtol"), "rtol", site));
  JFT_ASSIGN_OR_RETURN(out.ulps, readInt(structField(*attr, "ulps"), "ulps", site));
  JFT_ASSIGN_OR_RETURN(int64_t mode, readEnum(structField(*attr, "mode"), "mode",
                                              kResultAccuracyModeEnum, site));
  out.mode = static_cast<ir::ResultAccuracyMode>(mode);
  return out;
}

StatusOr<std::vector<ir::OutputOperandAlias>> readAliases(const MAttr* attr,
                                                          std::string_view name,
                                                          const OpSite& site) {
  if (!attr) return missing(name, site);
  if (attr->kind != MAttr::Kind::Array)
    return wrongKind(*attr, name, "an array of output_operand_alias_v1", site);
  std::vector<ir::OutputOperandAlias> out;
  for (const MAttrPtr& e : attr->elements) {
    if (!e || e->kind != MAttr::Kind::Struct)
      return site.invalid("attribute '" + std::string(name) +
                          "' must hold output_operand_alias_v1 structs");
    ir::OutputOperandAlias alias;
    JFT_ASSIGN_OR_RETURN(
        alias.output_tuple_indices,
        readInts(structField(*e, "output_tuple_indices"), "output_tuple_indices", site));
    JFT_ASSIGN_OR_RETURN(alias.operand_index, readInt(structField(*e, "operand_index"),
                                                      "operand_index", site));
    JFT_ASSIGN_OR_RETURN(alias.operand_tuple_indices,
                         readInts(structField(*e, "operand_tuple_indices"),
                                  "operand_tuple_indices", site));
    out.push_back(std::move(alias));
  }
  return out;
}

StatusOr<ir::NamedAttrs> readDict(const MAttr* attr, std::string_view name,
                                  const OpSite& site) {
  if (!attr) return missing(name, site);
  if (attr->kind != MAttr::Kind::Dictionary)
    return wrongKind(*attr, name, "a dictionary", site);
  return convertEntries(attr->entries, site, 0);
}

StatusOr<ir::Attribute> convertGeneric(const MAttr* attr, std::string_view name,
                                       const OpSite& site) {
  return convertAt(attr, name, site, 0);
}

}  // namespace jft::frontend::vhlo
