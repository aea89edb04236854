// NamedValues: owns a list of PJRT_NamedValue and everything they point to.
//
// Used for plugin, device and topology attributes. Values may only be strings,
// int64 or int64 lists: those are the kinds every framework version accepts.
// Cost analysis answers floats, as upstream's does.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "pjrt/abi.h"

namespace jft::pjrt {

class NamedValues {
 public:
  NamedValues() = default;
  NamedValues(const NamedValues&) = delete;
  NamedValues& operator=(const NamedValues&) = delete;

  void addString(std::string name, std::string value);
  void addInt64(std::string name, int64_t value);
  void addInt64List(std::string name, std::vector<int64_t> values);
  void addFloat(std::string name, float value);  // cost analysis only

  const PJRT_NamedValue* data() const { return values_.data(); }
  size_t size() const { return values_.size(); }

 private:
  PJRT_NamedValue& append(std::string name, PJRT_NamedValue_Type type);

  // Deques keep element addresses stable as entries are added.
  std::deque<std::string> strings_;
  std::deque<std::vector<int64_t>> lists_;
  std::vector<PJRT_NamedValue> values_;
};

}  // namespace jft::pjrt
