// A small JSON value, parser and writer for the worker protocol headers and the
// cache-entry headers.
//
// Objects keep their keys sorted (std::map) so that dump() is deterministic.
// Numbers are doubles: every integer we exchange (sizes, ids, counts) is far
// below 2^53. Strings are UTF-8 and kept as bytes; \u escapes are decoded to
// UTF-8 (surrogate pairs included).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "support/status.h"

namespace jft::kernel_compiler {

class Json {
 public:
  using Array = std::vector<Json>;
  using Object = std::map<std::string, Json, std::less<>>;
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };

  Json() = default;  // null
  Json(std::nullptr_t) {}
  Json(bool value) : kind_(Kind::kBool), bool_(value) {}
  Json(double value) : kind_(Kind::kNumber), number_(value) {}
  Json(int value) : Json(static_cast<double>(value)) {}
  Json(int64_t value) : Json(static_cast<double>(value)) {}
  Json(uint64_t value) : Json(static_cast<double>(value)) {}
  Json(uint32_t value) : Json(static_cast<double>(value)) {}
  Json(std::string value) : kind_(Kind::kString), string_(std::move(value)) {}
  Json(const char* value) : Json(std::string(value)) {}
  Json(Array value) : kind_(Kind::kArray), array_(std::move(value)) {}
  Json(Object value) : kind_(Kind::kObject), object_(std::move(value)) {}

  Kind kind() const { return kind_; }
  bool isNull() const { return kind_ == Kind::kNull; }
  bool isBool() const { return kind_ == Kind::kBool; }
  bool isNumber() const { return kind_ == Kind::kNumber; }
  bool isString() const { return kind_ == Kind::kString; }
  bool isArray() const { return kind_ == Kind::kArray; }
  bool isObject() const { return kind_ == Kind::kObject; }

  // Accessors check the kind with JFT_CHECK: callers test it first (or use the
  // require* helpers below for input that came from outside).
  bool asBool() const;
  double asNumber() const;
  const std::string& asString() const;
  const Array& asArray() const;
  const Object& asObject() const;

  // The member named key, or nullptr when this is not an object or lacks it.
  const Json* find(std::string_view key) const;
  // Sets a member, turning a null value into an empty object first.
  Json& set(std::string key, Json value);

  std::string dump() const;
  static StatusOr<Json> parse(std::string_view text);

 private:
  // Plain members rather than std::variant: GCC 12 at -O2 reports false
  // "maybe uninitialized" warnings for a variant inside std::optional.
  Kind kind_ = Kind::kNull;
  bool bool_ = false;
  double number_ = 0;
  std::string string_;
  Array array_;
  Object object_;
};

// Typed member access for untrusted input; errors name the missing/bad key.
StatusOr<int64_t> requireInt(const Json& object, std::string_view key);
StatusOr<std::string> requireString(const Json& object, std::string_view key);
StatusOr<bool> requireBool(const Json& object, std::string_view key);
StatusOr<double> requireNumber(const Json& object, std::string_view key);

}  // namespace jft::kernel_compiler
