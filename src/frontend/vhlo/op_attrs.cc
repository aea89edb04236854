#include "frontend/vhlo/op_attrs.h"

#include <algorithm>
#include <set>

#include "frontend/vhlo/attr_convert.h"
#include "frontend/vhlo/attr_defaults.h"
#include "frontend/vhlo/attr_groups.h"
#include "frontend/vhlo/typed_dict.h"

namespace jft::frontend::vhlo {
namespace {

// The typed ir form of a VHLO attribute, decided by its name (VHLO uses
// each name with one meaning across all ops).
enum class Form : uint8_t {
  Generic,
  Int,
  Ints,
  Bool,
  Bools,
  Float,
  String,
  Symbol,
  Symbols,
  Dense,
  DenseOrGeneric,
  Dict,
  TypedConfig,  // custom_call backend_config (typed_dict.h)
  Precisions,
  ResultAccuracy,
  Aliases,
  Layouts,
  ComparisonDirection,
  ComparisonType,
  FftType,
  RngAlgorithm,
  RngDistribution,
  Transpose,
  ApiVersion,
  ChannelId,
  UnitIfTrue,
};

struct NamedForm {
  std::string_view name;
  Form form;
};

constexpr NamedForm kForms[] = {
    {"all_gather_dim", Form::Int},
    {"api_version", Form::ApiVersion},
    {"backend_config", Form::TypedConfig},
    {"base_dilations", Form::Ints},
    {"batch_dims", Form::Int},
    {"batch_group_count", Form::Int},
    {"broadcast_dimensions", Form::Ints},
    {"broadcast_sizes", Form::Ints},
    {"call_target_name", Form::String},
    {"called_computations", Form::Symbols},
    {"callee", Form::Symbol},
    {"channel_id", Form::ChannelId},
    {"compare_type", Form::ComparisonType},
    {"comparison_direction", Form::ComparisonDirection},
    {"composite_attributes", Form::Dict},
    {"concat_dimension", Form::Int},
    {"decomposition", Form::Symbol},
    {"dim", Form::Int},
    {"dimension", Form::Int},
    {"dimensions", Form::Ints},
    {"edge_padding_high", Form::Ints},
    {"edge_padding_low", Form::Ints},
    {"einsum_config", Form::String},
    {"epsilon", Form::Float},
    {"exponent_bits", Form::Int},
    {"feature_group_count", Form::Int},
    {"feature_index", Form::Int},
    {"fft_length", Form::Ints},
    {"fft_type", Form::FftType},
    {"has_dynamic_root", Form::UnitIfTrue},
    {"has_side_effect", Form::Bool},
    {"index", Form::Int},
    {"indices_are_sorted", Form::Bool},
    {"infeed_config", Form::String},
    {"interior_padding", Form::Ints},
    {"iota_dimension", Form::Int},
    {"is_host_transfer", Form::Bool},
    {"is_stable", Form::Bool},
    {"known_expanding_dimensions", Form::Ints},
    {"known_nonexpanding_dimensions", Form::Ints},
    {"left_side", Form::Bool},
    {"lhs_dilation", Form::Ints},
    {"limit_indices", Form::Ints},
    {"lower", Form::Bool},
    {"mantissa_bits", Form::Int},
    {"mhlo.backend_config", Form::TypedConfig},
    {"name", Form::String},
    {"operand_layouts", Form::Layouts},
    {"outfeed_config", Form::String},
    {"output_operand_aliases", Form::Aliases},
    {"padding", Form::Dense},
    {"permutation", Form::Ints},
    {"precision_config", Form::Precisions},
    {"replica_groups", Form::DenseOrGeneric},
    {"result_accuracy", Form::ResultAccuracy},
    {"result_layouts", Form::Layouts},
    {"rhs_dilation", Form::Ints},
    {"rng_algorithm", Form::RngAlgorithm},
    {"rng_distribution", Form::RngDistribution},
    {"scatter_dimension", Form::Int},
    {"slice_sizes", Form::Ints},
    {"source_target_pairs", Form::Dense},
    {"split_count", Form::Int},
    {"split_dimension", Form::Int},
    {"start_indices", Form::Ints},
    {"strides", Form::Ints},
    {"transpose_a", Form::Transpose},
    {"unique_indices", Form::Bool},
    {"unit_diagonal", Form::Bool},
    {"use_global_device_ids", Form::UnitIfTrue},
    {"value", Form::Dense},
    {"version", Form::Int},
    {"window_dilations", Form::Ints},
    {"window_dimensions", Form::Ints},
    {"window_reversal", Form::Bools},
    {"window_strides", Form::Ints},
};

Form formOf(std::string_view name) {
  for (const NamedForm& f : kForms)
    if (f.name == name) return f.form;
  return Form::Generic;
}

template <typename E>
StatusOr<ir::Attribute> enumAttr(const MAttr* attr, std::string_view name,
                                 const EnumSpec& spec, const OpSite& site) {
  JFT_ASSIGN_OR_RETURN(int64_t v, readEnum(attr, name, spec, site));
  return ir::Attribute(static_cast<E>(v));
}

template <typename T>
StatusOr<ir::Attribute> wrap(StatusOr<T> value) {
  if (!value.isOk()) return value.status();
  return ir::Attribute(std::move(value).value());
}

StatusOr<ir::Attribute> convertForm(Form form, const MAttr* attr, std::string_view name,
                                    const OpSite& site) {
  switch (form) {
    case Form::Generic:
      return convertGeneric(attr, name, site);
    case Form::Int:
      return wrap(readInt(attr, name, site));
    case Form::Ints:
      return wrap(readInts(attr, name, site));
    case Form::Bool:
      return wrap(readBool(attr, name, site));
    case Form::Bools:
      return wrap(readBools(attr, name, site));
    case Form::Float:
      return wrap(readFloat(attr, name, site));
    case Form::String:
      return wrap(readString(attr, name, site));
    case Form::Symbol: {
      JFT_ASSIGN_OR_RETURN(std::string symbol, readSymbol(attr, name, site));
      return ir::Attribute(ir::SymbolRef{std::move(symbol)});
    }
    case Form::Symbols: {
      if (attr->kind != MAttr::Kind::Array)
        return site.invalid("attribute '" + std::string(name) +
                            "' must be an array of function names");
      ir::AttrList symbols;
      for (const MAttrPtr& e : attr->elements) {
        JFT_ASSIGN_OR_RETURN(std::string symbol, readSymbol(e.get(), name, site));
        symbols.push_back(ir::Attribute(ir::SymbolRef{std::move(symbol)}));
      }
      return ir::Attribute(std::move(symbols));
    }
    case Form::Dense:
      return wrap(readDense(attr, name, site));
    case Form::DenseOrGeneric:
      if (attr->kind == MAttr::Kind::DenseElements)
        return wrap(readDense(attr, name, site));
      return convertGeneric(attr, name, site);
    case Form::Dict:
      return wrap(readDict(attr, name, site));
    case Form::TypedConfig:
      return readTypedConfig(attr, name, site);
    case Form::Precisions:
      return wrap(readPrecisions(attr, name, site));
    case Form::ResultAccuracy:
      return wrap(readResultAccuracy(attr, name, site));
    case Form::Aliases:
      return wrap(readAliases(attr, name, site));
    case Form::Layouts: {
      if (attr->kind != MAttr::Kind::Array)
        return site.invalid("attribute '" + std::string(name) +
                            "' must be an array of layouts");
      ir::AttrList layouts;
      for (const MAttrPtr& e : attr->elements) {
        JFT_ASSIGN_OR_RETURN(std::vector<int64_t> layout, readInts(e.get(), name, site));
        layouts.push_back(ir::Attribute(std::move(layout)));
      }
      return ir::Attribute(std::move(layouts));
    }
    case Form::ComparisonDirection:
      return enumAttr<ir::ComparisonDirection>(attr, name, kComparisonDirectionEnum,
                                               site);
    case Form::ComparisonType:
      return enumAttr<ir::ComparisonType>(attr, name, kComparisonTypeEnum, site);
    case Form::FftType:
      return enumAttr<ir::FftType>(attr, name, kFftTypeEnum, site);
    case Form::RngAlgorithm:
      return enumAttr<ir::RngAlgorithm>(attr, name, kRngAlgorithmEnum, site);
    case Form::RngDistribution:
      return enumAttr<ir::RngDistribution>(attr, name, kRngDistributionEnum, site);
    case Form::Transpose:
      return enumAttr<ir::Transpose>(attr, name, kTransposeEnum, site);
    case Form::ApiVersion:
      return enumAttr<ir::CustomCallApiVersion>(attr, name, kApiVersionEnum, site);
    case Form::ChannelId: {
      JFT_ASSIGN_OR_RETURN(int64_t id, readInt(attr, name, site));
      return ir::Attribute(ir::ChannelHandle{id, 0});
    }
    case Form::UnitIfTrue: {
      JFT_ASSIGN_OR_RETURN(bool set, readBool(attr, name, site));
      if (!set)
        return internalError("false unit flag '" + std::string(name) + "' not dropped");
      return ir::Attribute(ir::UnitAttr{});
    }
  }
  return convertGeneric(attr, name, site);
}

}  // namespace

std::string_view opFamily(std::string_view vhlo_name) {
  std::string_view name = vhlo_name;
  if (auto dot = name.find('.'); dot != std::string_view::npos)
    name.remove_prefix(dot + 1);
  if (auto v = name.rfind("_v");
      v != std::string_view::npos && v + 2 < name.size() &&
      name.find_first_not_of("0123456789", v + 2) == std::string_view::npos)
    name = name.substr(0, v);
  return name;
}

StatusOr<ir::NamedAttrs> importOpAttrs(const MOp& op, const VhloOpInfo& info,
                                       const OpSite& site) {
  for (std::string_view required : info.attrs)
    if (!op.attr(required))
      return site.invalid("missing attribute '" + std::string(required) + "'");

  const std::string_view family = opFamily(info.name);
  ir::NamedAttrs out;
  JFT_ASSIGN_OR_RETURN(const std::set<std::string_view> grouped,
                       groupFields(op, family, site, out));

  for (const auto& [name, attr] : op.attrs) {
    if (grouped.count(name)) continue;
    if (!attr) return site.invalid("attribute '" + name + "' has no value");
    if (isStableHloDefault(op, family, name, *attr, site)) continue;
    const bool is_vhlo_op = info.name.starts_with("vhlo.");
    const Form form = is_vhlo_op ? formOf(name) : Form::Generic;
    if (form == Form::UnitIfTrue) {
      // StableHLO spells these flags as a unit attribute, present or absent.
      JFT_ASSIGN_OR_RETURN(bool set, readBool(attr.get(), name, site));
      if (!set) continue;
    }
    JFT_ASSIGN_OR_RETURN(ir::Attribute converted,
                         convertForm(form, attr.get(), name, site));
    const bool renamed = form == Form::ChannelId;
    out.emplace_back(renamed ? "channel_handle" : name, std::move(converted));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

}  // namespace jft::frontend::vhlo
