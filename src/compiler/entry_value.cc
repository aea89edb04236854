// Entry values from the entry function's types.
#include "compiler/entry_value.h"

#include "ir/attribute.h"

namespace jft::compiler {
namespace {

std::vector<EntryValue> describeAll(const std::vector<ir::Type>& types,
                                    const std::vector<std::string>& memory_kinds,
                                    const std::vector<std::vector<int64_t>>& layouts) {
  std::vector<EntryValue> values;
  values.reserve(types.size());
  for (size_t i = 0; i < types.size(); ++i) {
    values.push_back(describeEntryValue(types[i]));
    if (i < memory_kinds.size()) values.back().memory_kind = memory_kinds[i];
    if (i < layouts.size()) values.back().minor_to_major = layouts[i];
  }
  return values;
}

}  // namespace

EntryValue describeEntryValue(const ir::Type& type) {
  EntryValue value;
  value.text = type.str();
  if (type.isToken()) {
    value.kind = EntryValue::Kind::kToken;
  } else if (type.isTensor()) {
    value.kind = EntryValue::Kind::kArray;
    value.element = type.element;
    value.dims = type.dims;
    value.bytes = type.byteSize();
  }
  return value;
}

std::string entryMemoryKind(const ir::NamedAttrs& attrs) {
  const auto* kind = ir::findAttrAs<std::string>(attrs, "mhlo.memory_kind");
  return kind != nullptr && *kind == "pinned_host" ? "pinned_host" : "device";
}

std::vector<std::string> entryMemoryKinds(const std::vector<ir::NamedAttrs>& attrs,
                                          size_t count) {
  std::vector<std::string> kinds;
  kinds.reserve(count);
  for (size_t i = 0; i < count; ++i)
    kinds.push_back(entryMemoryKind(i < attrs.size() ? attrs[i] : ir::NamedAttrs{}));
  return kinds;
}

std::vector<EntryValue> entryParameters(const Executable& executable) {
  return describeAll(executable.parameter_types, executable.parameter_memory_kinds,
                     executable.parameter_layouts);
}

std::vector<EntryValue> entryOutputs(const Executable& executable) {
  return describeAll(executable.output_types, executable.output_memory_kinds,
                     executable.output_layouts);
}

}  // namespace jft::compiler
