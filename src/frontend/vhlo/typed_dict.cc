#include "frontend/vhlo/typed_dict.h"

#include <cstring>
#include <memory>

#include "frontend/vhlo/attr_convert.h"

namespace jft::frontend::vhlo {
namespace {

constexpr int kMaxDepth = 32;

MTypePtr tensorOf(const MTypePtr& element, std::vector<int64_t> shape) {
  auto tensor = std::make_shared<MType>();
  tensor->kind = MType::Kind::RankedTensor;
  tensor->shape = std::move(shape);
  tensor->elements = {element};
  return tensor;
}

// The scalar's bytes, little-endian, as a dense literal stores them.
bool scalarBytes(const MAttr& attr, std::vector<uint8_t>& out) {
  const MType& type = *attr.type;
  if (attr.kind == MAttr::Kind::Integer && type.kind == MType::Kind::Integer) {
    const unsigned bytes = type.width <= 8 ? 1 : type.width / 8;
    if (bytes > 8 || (type.width > 8 && type.width % 8 != 0)) return false;
    const uint64_t value = static_cast<uint64_t>(attr.int_value);
    for (unsigned i = 0; i < bytes; ++i)
      out.push_back(static_cast<uint8_t>(value >> (8 * i)));
    return true;
  }
  if (attr.kind == MAttr::Kind::Float && type.kind == MType::Kind::Float) {
    if (type.float_name == "f32") {
      const float f = static_cast<float>(attr.float_value);
      out.resize(4);
      std::memcpy(out.data(), &f, 4);
      return true;
    }
    if (type.float_name == "f64") {
      out.resize(8);
      std::memcpy(out.data(), &attr.float_value, 8);
      return true;
    }
  }
  return false;
}

StatusOr<ir::Attribute> convertTyped(const MAttr* attr, std::string_view name,
                                     const OpSite& site, int depth) {
  if (attr == nullptr || depth > kMaxDepth) return convertGeneric(attr, name, site);
  if (attr->kind == MAttr::Kind::Dictionary) {
    ir::NamedAttrs entries;
    for (const auto& [key, value] : attr->entries) {
      JFT_ASSIGN_OR_RETURN(ir::Attribute converted,
                           convertTyped(value.get(), key, site, depth + 1));
      entries.emplace_back(key, std::move(converted));
    }
    return ir::Attribute(std::move(entries));
  }
  if ((attr->kind == MAttr::Kind::Integer || attr->kind == MAttr::Kind::Float) &&
      attr->type) {
    MAttr dense;
    dense.kind = MAttr::Kind::DenseElements;
    dense.type = tensorOf(attr->type, {});
    if (scalarBytes(*attr, dense.data)) {
      JFT_ASSIGN_OR_RETURN(ir::DenseElements elements, readDense(&dense, name, site));
      return ir::Attribute(std::move(elements));
    }
  }
  if (attr->kind == MAttr::Kind::DenseArray && attr->type) {
    const int64_t width =
        attr->type->kind == MType::Kind::Integer ? attr->type->width : 0;
    const int64_t bytes = width <= 8 ? 1 : width / 8;
    if (width > 1 && static_cast<int64_t>(attr->data.size()) % bytes == 0) {
      MAttr dense;
      dense.kind = MAttr::Kind::DenseElements;
      dense.type =
          tensorOf(attr->type, {static_cast<int64_t>(attr->data.size()) / bytes});
      dense.data = attr->data;
      StatusOr<ir::DenseElements> elements = readDense(&dense, name, site);
      if (elements.isOk()) return ir::Attribute(std::move(elements).value());
    }
  }
  return convertGeneric(attr, name, site);
}

}  // namespace

StatusOr<ir::Attribute> readTypedConfig(const MAttr* attr, std::string_view name,
                                        const OpSite& site) {
  return convertTyped(attr, name, site, 0);
}

}  // namespace jft::frontend::vhlo
