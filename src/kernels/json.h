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
#include <variant>
#include <vector>

#include "support/status.h"

namespace jft::kernels {

class Json {
 public:
  using Array = std::vector<Json>;
  using Object = std::map<std::string, Json, std::less<>>;

  Json() = default;  // null
  Json(std::nullptr_t) {}
  Json(bool value) : value_(value) {}
  Json(double value) : value_(value) {}
  Json(int value) : value_(static_cast<double>(value)) {}
  Json(int64_t value) : value_(static_cast<double>(value)) {}
  Json(uint64_t value) : value_(static_cast<double>(value)) {}
  Json(uint32_t value) : value_(static_cast<double>(value)) {}
  Json(std::string value) : value_(std::move(value)) {}
  Json(const char* value) : value_(std::string(value)) {}
  Json(Array value) : value_(std::move(value)) {}
  Json(Object value) : value_(std::move(value)) {}

  bool isNull() const { return std::holds_alternative<std::monostate>(value_); }
  bool isBool() const { return std::holds_alternative<bool>(value_); }
  bool isNumber() const { return std::holds_alternative<double>(value_); }
  bool isString() const { return std::holds_alternative<std::string>(value_); }
  bool isArray() const { return std::holds_alternative<Array>(value_); }
  bool isObject() const { return std::holds_alternative<Object>(value_); }

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
  std::variant<std::monostate, bool, double, std::string, Array, Object> value_;
};

// Typed member access for untrusted input; errors name the missing/bad key.
StatusOr<int64_t> requireInt(const Json& object, std::string_view key);
StatusOr<std::string> requireString(const Json& object, std::string_view key);
StatusOr<bool> requireBool(const Json& object, std::string_view key);
StatusOr<double> requireNumber(const Json& object, std::string_view key);

}  // namespace jft::kernels
