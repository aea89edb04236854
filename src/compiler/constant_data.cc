#include "compiler/constant_data.h"

#include <algorithm>
#include <cstring>

namespace jft::compiler {

StatusOr<std::string> constantBufferData(const ir::Op& op, const ir::Type& type,
                                         std::string_view where) {
  const auto* literal = ir::findAttrAs<ir::DenseElements>(op.attrs, "value");
  if (literal == nullptr || literal->type != type || !literal->wellFormed())
    return invalidArgument(std::string(where) +
                           ": its value is not a dense literal of type " + type.str());
  const auto bytes = static_cast<uint64_t>(type.byteSize());
  if (bytes > kMaxConstantBufferBytes)
    return resourceExhausted(std::string(where) + ": a constant buffer of " + type.str() +
                             " (" + std::to_string(bytes) +
                             " bytes) is too large to build");
  if (!literal->splat) return std::string(literal->bytes.begin(), literal->bytes.end());
  // The splat's element, then the filled prefix copied after itself.
  std::string data(static_cast<size_t>(bytes), '\0');
  if (data.empty()) return data;
  std::memcpy(data.data(), literal->bytes.data(), literal->bytes.size());
  for (size_t filled = literal->bytes.size(); filled < data.size();) {
    const size_t n = std::min(filled, data.size() - filled);
    std::memcpy(data.data() + filled, data.data(), n);
    filled += n;
  }
  return data;
}

}  // namespace jft::compiler
