#include "frontend/vhlo/op_attrs.h"

#include <algorithm>
#include <set>

#include "frontend/vhlo/attr_convert.h"
#include "frontend/vhlo/dense.h"
#include "frontend/vhlo/types.h"

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

// When an attribute equals its StableHLO default (and is dropped).
enum class Default : uint8_t {
  IntIs,
  False,
  EmptyString,
  EmptyArray,
  EmptyDict,
  EmptyStringOrDict,
  EmptyTensor,
  SplatOf,
  SplatFalse,
  AllDefaultPrecision,
  EnumIs,
  DefaultAccuracy,
};

struct DefaultRule {
  std::string_view family, attr;
  Default when;
  int64_t value = 0;
};

constexpr std::string_view kTranscendentals[] = {
    "cbrt", "cosine",       "exponential", "exponential_minus_one",
    "log",  "log_plus_one", "logistic",    "rsqrt",
    "sine", "sqrt",         "tan",         "tanh"};

constexpr DefaultRule kDefaults[] = {
    {"all_gather", "channel_id", Default::IntIs, 0},
    {"all_gather", "use_global_device_ids", Default::False},
    {"all_reduce", "channel_id", Default::IntIs, 0},
    {"all_reduce", "use_global_device_ids", Default::False},
    {"reduce_scatter", "channel_id", Default::IntIs, 0},
    {"reduce_scatter", "use_global_device_ids", Default::False},
    {"all_to_all", "channel_id", Default::IntIs, 0},
    {"collective_permute", "channel_id", Default::IntIs, 0},
    {"collective_broadcast", "channel_id", Default::IntIs, 0},
    {"collective_broadcast", "has_dynamic_root", Default::False},
    {"cholesky", "lower", Default::False},
    {"compare", "compare_type", Default::EnumIs, 0},
    {"composite", "version", Default::IntIs, 0},
    {"composite", "composite_attributes", Default::EmptyDict},
    {"convolution", "window_strides", Default::SplatOf, 1},
    {"convolution", "padding", Default::SplatOf, 0},
    {"convolution", "lhs_dilation", Default::SplatOf, 1},
    {"convolution", "rhs_dilation", Default::SplatOf, 1},
    {"convolution", "window_reversal", Default::SplatFalse},
    {"convolution", "precision_config", Default::AllDefaultPrecision},
    {"dynamic_conv", "window_strides", Default::SplatOf, 1},
    {"dynamic_conv", "padding", Default::SplatOf, 0},
    {"dynamic_conv", "lhs_dilation", Default::SplatOf, 1},
    {"dynamic_conv", "rhs_dilation", Default::SplatOf, 1},
    {"dynamic_conv", "window_reversal", Default::SplatFalse},
    {"dynamic_conv", "precision_config", Default::AllDefaultPrecision},
    {"custom_call", "has_side_effect", Default::False},
    {"custom_call", "backend_config", Default::EmptyStringOrDict},
    {"custom_call", "api_version", Default::EnumIs, 1},  // API_VERSION_ORIGINAL
    {"custom_call", "called_computations", Default::EmptyArray},
    {"custom_call", "output_operand_aliases", Default::EmptyArray},
    {"custom_call", "result_tilings", Default::EmptyArray},
    {"dot_general", "precision_config", Default::AllDefaultPrecision},
    {"dot", "precision_config", Default::AllDefaultPrecision},
    {"dynamic_broadcast_in_dim", "known_expanding_dimensions", Default::EmptyTensor},
    {"dynamic_broadcast_in_dim", "known_nonexpanding_dimensions", Default::EmptyTensor},
    {"gather", "indices_are_sorted", Default::False},
    {"dynamic_gather", "indices_are_sorted", Default::False},
    {"infeed", "infeed_config", Default::EmptyString},
    {"infeed", "layout", Default::EmptyArray},
    {"outfeed", "outfeed_config", Default::EmptyString},
    {"recv", "is_host_transfer", Default::False},
    {"recv", "source_target_pairs", Default::EmptyTensor},
    {"send", "is_host_transfer", Default::False},
    {"send", "source_target_pairs", Default::EmptyTensor},
    {"reduce_window", "window_strides", Default::SplatOf, 1},
    {"reduce_window", "base_dilations", Default::SplatOf, 1},
    {"reduce_window", "window_dilations", Default::SplatOf, 1},
    {"reduce_window", "padding", Default::SplatOf, 0},
    {"scatter", "indices_are_sorted", Default::False},
    {"scatter", "unique_indices", Default::False},
    {"select_and_scatter", "window_strides", Default::SplatOf, 1},
    {"select_and_scatter", "padding", Default::SplatOf, 0},
    {"sort", "dimension", Default::IntIs, -1},
    {"sort", "is_stable", Default::False},
};

bool allElementsAre(const MAttr& attr, int64_t value, const OpSite& site) {
  auto values = decodeInts(attr, site);
  if (!values.isOk() || values->empty()) return false;
  return std::all_of(values->begin(), values->end(),
                     [&](int64_t v) { return v == value; });
}

bool holds(const MAttr& attr, Default when, int64_t value, const OpSite& site) {
  using K = MAttr::Kind;
  switch (when) {
    case Default::IntIs:
      return attr.kind == K::Integer && attr.int_value == value;
    case Default::False:
      return attr.kind == K::Bool && attr.int_value == 0;
    case Default::EmptyString:
      return attr.kind == K::String && attr.str.empty();
    case Default::EmptyArray:
      return attr.kind == K::Array && attr.elements.empty();
    case Default::EmptyDict:
      return attr.kind == K::Dictionary && attr.entries.empty();
    case Default::EmptyStringOrDict:
      return holds(attr, Default::EmptyString, 0, site) ||
             holds(attr, Default::EmptyDict, 0, site);
    case Default::EmptyTensor:
      return attr.kind == K::DenseElements && attr.data.empty();
    case Default::SplatOf:
      return attr.kind == K::DenseElements && allElementsAre(attr, value, site);
    case Default::SplatFalse:
      return attr.kind == K::DenseElements && allElementsAre(attr, 0, site);
    case Default::AllDefaultPrecision:
      return attr.kind == K::Array &&
             std::all_of(attr.elements.begin(), attr.elements.end(),
                         [](const MAttrPtr& e) {
                           return e && e->kind == K::Enum && e->int_value == 0;
                         });
    case Default::EnumIs:
      return attr.kind == K::Enum && attr.int_value == value;
    case Default::DefaultAccuracy: {
      auto ra = readResultAccuracy(&attr, "result_accuracy", site);
      return ra.isOk() && *ra == ir::ResultAccuracy{};
    }
  }
  return false;
}

bool isTranscendental(std::string_view family) {
  return std::find(std::begin(kTranscendentals), std::end(kTranscendentals), family) !=
         std::end(kTranscendentals);
}

bool isDefault(const MOp& op, std::string_view family, std::string_view name,
               const MAttr& attr, const OpSite& site) {
  if (name == "result_accuracy" && isTranscendental(family))
    return holds(attr, Default::DefaultAccuracy, 0, site);
  // Layouts are all-or-nothing: both lists go only when both are empty.
  if (family == "custom_call" &&
      (name == "operand_layouts" || name == "result_layouts")) {
    const MAttr* operands = op.attr("operand_layouts");
    const MAttr* results = op.attr("result_layouts");
    return operands && results && holds(*operands, Default::EmptyArray, 0, site) &&
           holds(*results, Default::EmptyArray, 0, site);
  }
  for (const DefaultRule& rule : kDefaults)
    if (rule.family == family && rule.attr == name)
      return holds(attr, rule.when, rule.value, site);
  return false;
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

// Reads a list field that older op versions do not have (batching dims
// arrived in 1.1.0): absent means empty.
StatusOr<std::vector<int64_t>> optionalInts(const MOp& op, std::string_view name,
                                            const OpSite& site) {
  const MAttr* attr = op.attr(name);
  if (!attr) return std::vector<int64_t>{};
  return readInts(attr, name, site);
}

// Groups of VHLO fields that StableHLO holds as one attribute.
class Grouper {
 public:
  Grouper(const MOp& op, const OpSite& site, ir::NamedAttrs& out)
      : op_(op), site_(site), out_(out) {}

  const std::set<std::string_view>& consumed() const { return consumed_; }

  Status group(std::string_view family) {
    if (family == "dot_general") return dot();
    if (family == "convolution" || family == "dynamic_conv") return conv();
    if (family == "gather" || family == "dynamic_gather") return gather();
    if (family == "scatter") return scatter();
    if (family == "send" || family == "recv") return channel();
    return Status::ok();
  }

 private:
  const MAttr* take(std::string_view name) {
    consumed_.insert(name);
    return op_.attr(name);
  }
  StatusOr<std::vector<int64_t>> ints(std::string_view name) {
    return readInts(take(name), name, site_);
  }
  StatusOr<std::vector<int64_t>> optional(std::string_view name) {
    consumed_.insert(name);
    return optionalInts(op_, name, site_);
  }
  StatusOr<int64_t> integer(std::string_view name) {
    return readInt(take(name), name, site_);
  }

  Status dot() {
    ir::DotDimensionNumbers dims;
    JFT_ASSIGN_OR_RETURN(dims.lhs_batching_dims, ints("lhs_batching_dimensions"));
    JFT_ASSIGN_OR_RETURN(dims.rhs_batching_dims, ints("rhs_batching_dimensions"));
    JFT_ASSIGN_OR_RETURN(dims.lhs_contracting_dims, ints("lhs_contracting_dimensions"));
    JFT_ASSIGN_OR_RETURN(dims.rhs_contracting_dims, ints("rhs_contracting_dimensions"));
    out_.emplace_back("dot_dimension_numbers", std::move(dims));
    return dotAlgorithm();
  }

  bool isNone(const MAttr* attr) const {
    return attr && attr->kind == MAttr::Kind::TypeAttr && attr->type &&
           attr->type->kind == MType::Kind::None;
  }

  StatusOr<ir::Type> precisionType(std::string_view name) {
    const MAttr* attr = take(name);
    if (!attr || attr->kind != MAttr::Kind::TypeAttr)
      return site_.invalid("attribute '" + std::string(name) + "' must be a type");
    JFT_ASSIGN_OR_RETURN(ir::ElementType element,
                         convertElementType(attr->type.get(), site_));
    return ir::Type::scalar(element);
  }

  // dot_general_v2's algorithm: all seven fields none (no algorithm) or all set.
  Status dotAlgorithm() {
    constexpr std::string_view kFields[] = {
        "lhs_precision_type",          "rhs_precision_type",  "accumulation_type",
        "lhs_component_count",         "rhs_component_count", "num_primitive_operations",
        "allow_imprecise_accumulation"};
    int none = 0, present = 0;
    for (std::string_view f : kFields) {
      const MAttr* attr = op_.attr(f);
      present += attr != nullptr;
      none += isNone(attr);
    }
    if (present == 0) return Status::ok();  // dot_general_v1
    for (std::string_view f : kFields) consumed_.insert(f);
    if (none == 7) return Status::ok();
    if (none != 0)
      return site_.invalid("dot algorithm fields must be all none or all set");
    ir::DotAlgorithm algorithm;
    JFT_ASSIGN_OR_RETURN(algorithm.lhs_precision_type,
                         precisionType("lhs_precision_type"));
    JFT_ASSIGN_OR_RETURN(algorithm.rhs_precision_type,
                         precisionType("rhs_precision_type"));
    JFT_ASSIGN_OR_RETURN(algorithm.accumulation_type, precisionType("accumulation_type"));
    JFT_ASSIGN_OR_RETURN(algorithm.lhs_component_count, integer("lhs_component_count"));
    JFT_ASSIGN_OR_RETURN(algorithm.rhs_component_count, integer("rhs_component_count"));
    JFT_ASSIGN_OR_RETURN(algorithm.num_primitive_operations,
                         integer("num_primitive_operations"));
    JFT_ASSIGN_OR_RETURN(algorithm.allow_imprecise_accumulation,
                         readBool(take("allow_imprecise_accumulation"),
                                  "allow_imprecise_accumulation", site_));
    out_.emplace_back("algorithm", std::move(algorithm));
    return Status::ok();
  }

  Status conv() {
    ir::ConvDimensionNumbers dims;
    JFT_ASSIGN_OR_RETURN(dims.input_batch_dim, integer("input_batch_dimension"));
    JFT_ASSIGN_OR_RETURN(dims.input_feature_dim, integer("input_feature_dimension"));
    JFT_ASSIGN_OR_RETURN(dims.input_spatial_dims, ints("input_spatial_dimensions"));
    JFT_ASSIGN_OR_RETURN(dims.kernel_input_feature_dim,
                         integer("kernel_input_feature_dimension"));
    JFT_ASSIGN_OR_RETURN(dims.kernel_output_feature_dim,
                         integer("kernel_output_feature_dimension"));
    JFT_ASSIGN_OR_RETURN(dims.kernel_spatial_dims, ints("kernel_spatial_dimensions"));
    JFT_ASSIGN_OR_RETURN(dims.output_batch_dim, integer("output_batch_dimension"));
    JFT_ASSIGN_OR_RETURN(dims.output_feature_dim, integer("output_feature_dimension"));
    JFT_ASSIGN_OR_RETURN(dims.output_spatial_dims, ints("output_spatial_dimensions"));
    out_.emplace_back("dimension_numbers", std::move(dims));
    return Status::ok();
  }

  Status gather() {
    ir::GatherDimensionNumbers dims;
    JFT_ASSIGN_OR_RETURN(dims.offset_dims, ints("offset_dims"));
    JFT_ASSIGN_OR_RETURN(dims.collapsed_slice_dims, ints("collapsed_slice_dims"));
    JFT_ASSIGN_OR_RETURN(dims.operand_batching_dims, optional("operand_batching_dims"));
    JFT_ASSIGN_OR_RETURN(dims.start_indices_batching_dims,
                         optional("start_indices_batching_dims"));
    JFT_ASSIGN_OR_RETURN(dims.start_index_map, ints("start_index_map"));
    JFT_ASSIGN_OR_RETURN(dims.index_vector_dim, integer("index_vector_dim"));
    out_.emplace_back("dimension_numbers", std::move(dims));
    return Status::ok();
  }

  Status scatter() {
    ir::ScatterDimensionNumbers dims;
    JFT_ASSIGN_OR_RETURN(dims.update_window_dims, ints("update_window_dims"));
    JFT_ASSIGN_OR_RETURN(dims.inserted_window_dims, ints("inserted_window_dims"));
    JFT_ASSIGN_OR_RETURN(dims.input_batching_dims, optional("input_batching_dims"));
    JFT_ASSIGN_OR_RETURN(dims.scatter_indices_batching_dims,
                         optional("scatter_indices_batching_dims"));
    JFT_ASSIGN_OR_RETURN(dims.scatter_dims_to_operand_dims,
                         ints("scatter_dims_to_operand_dims"));
    JFT_ASSIGN_OR_RETURN(dims.index_vector_dim, integer("index_vector_dim"));
    out_.emplace_back("scatter_dimension_numbers", std::move(dims));
    return Status::ok();
  }

  Status channel() {
    ir::ChannelHandle handle;
    JFT_ASSIGN_OR_RETURN(handle.handle, integer("channel_id"));
    JFT_ASSIGN_OR_RETURN(handle.type, integer("channel_type"));
    out_.emplace_back("channel_handle", handle);
    return Status::ok();
  }

  const MOp& op_;
  const OpSite& site_;
  ir::NamedAttrs& out_;
  std::set<std::string_view> consumed_;
};

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
  Grouper grouper(op, site, out);
  JFT_RETURN_IF_ERROR(grouper.group(family));

  for (const auto& [name, attr] : op.attrs) {
    if (grouper.consumed().count(name)) continue;
    if (!attr) return site.invalid("attribute '" + name + "' has no value");
    if (isDefault(op, family, name, *attr, site)) continue;
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
