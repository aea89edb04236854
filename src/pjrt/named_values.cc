// NamedValues implementation.
#include "pjrt/named_values.h"

namespace jft::pjrt {

PJRT_NamedValue& NamedValues::append(std::string name, PJRT_NamedValue_Type type) {
  const std::string& stored = strings_.emplace_back(std::move(name));
  PJRT_NamedValue value{};
  value.struct_size = JFT_ABI_SIZE_UP_TO(PJRT_NamedValue, value_size);
  value.name = stored.c_str();
  value.name_size = stored.size();
  value.type = type;
  return values_.emplace_back(value);
}

void NamedValues::addString(std::string name, std::string value) {
  PJRT_NamedValue& entry = append(std::move(name), PJRT_NamedValue_kString);
  const std::string& stored = strings_.emplace_back(std::move(value));
  entry.string_value = stored.c_str();
  entry.value_size = stored.size();
}

void NamedValues::addInt64(std::string name, int64_t value) {
  PJRT_NamedValue& entry = append(std::move(name), PJRT_NamedValue_kInt64);
  entry.int64_value = value;
  entry.value_size = 1;
}

void NamedValues::addFloat(std::string name, float value) {
  PJRT_NamedValue& entry = append(std::move(name), PJRT_NamedValue_kFloat);
  entry.float_value = value;
  entry.value_size = 1;
}

void NamedValues::addInt64List(std::string name, std::vector<int64_t> values) {
  PJRT_NamedValue& entry = append(std::move(name), PJRT_NamedValue_kInt64List);
  const std::vector<int64_t>& stored = lists_.emplace_back(std::move(values));
  entry.int64_array_value = stored.data();
  entry.value_size = stored.size();
}

}  // namespace jft::pjrt
