// Entry values from the entry function's types.
#include "compiler/entry_value.h"

namespace jft::compiler {
namespace {

std::vector<EntryValue> describeAll(const std::vector<ir::Type>& types) {
  std::vector<EntryValue> values;
  values.reserve(types.size());
  for (const ir::Type& type : types) values.push_back(describeEntryValue(type));
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

std::vector<EntryValue> entryParameters(const Executable& executable) {
  return describeAll(executable.parameter_types);
}

std::vector<EntryValue> entryOutputs(const Executable& executable) {
  return describeAll(executable.output_types);
}

}  // namespace jft::compiler
