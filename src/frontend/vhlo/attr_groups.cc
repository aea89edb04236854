#include "frontend/vhlo/attr_groups.h"

#include "frontend/vhlo/attr_convert.h"
#include "frontend/vhlo/types.h"
#include "ir/attribute_fields.h"

namespace jft::frontend::vhlo {
namespace {

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

  // A dimension-numbers attribute named `attr` from its VHLO fields.
  template <typename T>
  Status fields(std::string attr) {
    T value;
    for (const ir::ListField<T>& field : ir::AttrFields<T>::lists) {
      JFT_ASSIGN_OR_RETURN(value.*field.member,
                           field.since_1_1 ? optional(field.name) : ints(field.name));
    }
    for (const ir::IntField<T>& field : ir::AttrFields<T>::ints) {
      JFT_ASSIGN_OR_RETURN(value.*field.member, integer(field.name));
    }
    out_.emplace_back(std::move(attr), std::move(value));
    return Status::ok();
  }

  Status dot() {
    JFT_RETURN_IF_ERROR(fields<ir::DotDimensionNumbers>("dot_dimension_numbers"));
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

  Status conv() { return fields<ir::ConvDimensionNumbers>("dimension_numbers"); }

  Status gather() { return fields<ir::GatherDimensionNumbers>("dimension_numbers"); }

  Status scatter() {
    return fields<ir::ScatterDimensionNumbers>("scatter_dimension_numbers");
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

StatusOr<std::set<std::string_view>> groupFields(const MOp& op, std::string_view family,
                                                 const OpSite& site,
                                                 ir::NamedAttrs& out) {
  Grouper grouper(op, site, out);
  JFT_RETURN_IF_ERROR(grouper.group(family));
  return grouper.consumed();
}

}  // namespace jft::frontend::vhlo
