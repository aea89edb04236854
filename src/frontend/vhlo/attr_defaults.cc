#include "frontend/vhlo/attr_defaults.h"

#include <algorithm>
#include <iterator>

#include "frontend/vhlo/attr_convert.h"
#include "frontend/vhlo/dense.h"

namespace jft::frontend::vhlo {
namespace {

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

}  // namespace

bool isStableHloDefault(const MOp& op, std::string_view family, std::string_view name,
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

}  // namespace jft::frontend::vhlo
