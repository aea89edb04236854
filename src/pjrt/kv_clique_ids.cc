// Clique ids through the key-value store.
#include "pjrt/kv_clique_ids.h"

namespace jft::pjrt {
namespace {

constexpr const char* kPrefix = "jax_flagtree/clique/";

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string hexEncode(const std::string& bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char byte : bytes) {
    out.push_back(kDigits[byte >> 4]);
    out.push_back(kDigits[byte & 0xF]);
  }
  return out;
}

StatusOr<std::string> hexDecode(const std::string& text) {
  if (text.size() % 2 != 0)
    return invalidArgument("a hex value of odd length " + std::to_string(text.size()));
  std::string out;
  out.reserve(text.size() / 2);
  for (size_t i = 0; i < text.size(); i += 2) {
    int high = hexDigit(text[i]);
    int low = hexDigit(text[i + 1]);
    if (high < 0 || low < 0)
      return invalidArgument("a hex value holds a non-hex digit at " + std::to_string(i));
    out.push_back(static_cast<char>(high << 4 | low));
  }
  return out;
}

Status KvCliqueIdExchange::publish(const std::string& key, const std::string& value) {
  return store_->put(kPrefix + key, hexEncode(value));
}

StatusOr<std::string> KvCliqueIdExchange::wait(const std::string& key,
                                               std::chrono::milliseconds timeout) {
  StatusOr<std::string> got = store_->get(kPrefix + key, timeout);
  if (!got.isOk())
    return Status(StatusCode::kDeadlineExceeded,
                  "no clique id for " + key + " arrived within " +
                      std::to_string(timeout.count()) + " ms (" + got.status().message() +
                      ")");
  StatusOr<std::string> decoded = hexDecode(*got);
  if (!decoded.isOk())
    return decoded.status().withContext("the clique id published for " + key);
  return decoded;
}

}  // namespace jft::pjrt
