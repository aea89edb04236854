#include "support/text.h"

namespace jft {

std::string intListText(const std::vector<int64_t>& values, std::string_view separator) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i != 0) text += separator;
    text += std::to_string(values[i]);
  }
  return text + "]";
}

}  // namespace jft
