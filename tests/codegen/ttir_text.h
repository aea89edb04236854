// Text helpers shared by the tests' readers of emitted TTIR (the syntax
// checker and the host interpreter).
#pragma once

#include <cctype>
#include <string_view>

namespace jft::codegen::ttir::testing {

// `s` without leading and trailing white space.
inline std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

}  // namespace jft::codegen::ttir::testing
