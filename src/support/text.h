// Small text forms shared by messages and descriptions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace jft {

// `value` in decimal, for messages that hold many numbers.
inline std::string intText(int64_t value) {
  return std::to_string(value);
}

// "[1, 2, 3]", with `separator` between the values ("," gives "[1,2,3]").
std::string intListText(const std::vector<int64_t>& values,
                        std::string_view separator = ", ");

}  // namespace jft
