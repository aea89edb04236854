#include "ir/custom_call.h"

namespace jft::ir {

const NamedAttrs* typedFfiConfig(const Op& op, const NamedAttrs& empty) {
  if (op.kind != OpKind::CustomCall) return nullptr;
  const auto* version = findAttrAs<CustomCallApiVersion>(op.attrs, "api_version");
  const CustomCallApiVersion api =
      version != nullptr ? *version : CustomCallApiVersion::ORIGINAL;
  const Attribute* config = findAttr(op.attrs, "backend_config");
  const bool no_config = config == nullptr ||
                         (config->is<std::string>() && config->as<std::string>().empty());
  if (api == CustomCallApiVersion::TYPED_FFI) {
    if (no_config) return &empty;
    return config->is<NamedAttrs>() ? &config->as<NamedAttrs>() : nullptr;
  }
  if (api == CustomCallApiVersion::ORIGINAL && no_config)
    return findAttrAs<NamedAttrs>(op.attrs, "mhlo.backend_config");
  return nullptr;
}

bool isTypedFfiCall(const Op& op) {
  const NamedAttrs empty;
  return typedFfiConfig(op, empty) != nullptr;
}

}  // namespace jft::ir
