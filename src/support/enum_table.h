// What we say about each value of an enum (its name, its size, ...) as one
// table with a row per value, instead of one switch per fact: each fact is
// then written once per value, side by side.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>

namespace jft {

// The row of `rows` whose `value` is `value`; nullptr when none is.
template <typename Row, size_t N, typename Enum>
constexpr const Row* rowOf(const Row (&rows)[N], Enum value) {
  for (const Row& row : rows)
    if (row.value == value) return &row;
  return nullptr;
}

// A row that holds a name only.
template <typename Enum>
struct EnumName {
  Enum value;
  const char* name;
};

// A row of an element type enum: its name and its size in bytes.
template <typename Enum>
struct ElementTypeRow {
  Enum value;
  const char* name;
  int64_t bytes;
};

// The `name` of value's row; `unknown` when it has none.
template <typename Row, size_t N, typename Enum>
constexpr const char* nameOf(const Row (&rows)[N], Enum value, const char* unknown) {
  const Row* row = rowOf(rows, value);
  return row != nullptr ? row->name : unknown;
}

// The `bytes` of value's row; `unknown` when it has none.
template <typename Row, size_t N, typename Enum>
constexpr int64_t bytesOf(const Row (&rows)[N], Enum value, int64_t unknown) {
  const Row* row = rowOf(rows, value);
  return row != nullptr ? row->bytes : unknown;
}

// A row that maps a value onto another enum's (a library's constant for ours).
template <typename Enum, typename To>
struct EnumMapping {
  Enum value;
  To to;
};

// The `to` of value's row; `unknown` when it has none.
template <typename Row, size_t N, typename Enum, typename To>
constexpr To mapOf(const Row (&rows)[N], Enum value, To unknown) {
  const Row* row = rowOf(rows, value);
  return row != nullptr ? row->to : unknown;
}

// The `to` of value's row; nothing when it has none (a partial mapping).
template <typename Row, size_t N, typename Enum>
constexpr auto mapOf(const Row (&rows)[N], Enum value)
    -> std::optional<decltype(Row::to)> {
  const Row* row = rowOf(rows, value);
  if (row == nullptr) return std::nullopt;
  return row->to;
}

// A row that maps a value onto one of two constants, the caller's flag
// choosing (a library's constant for ours, plain or with an option: f32 or
// f64, real or complex, without or with a bias).
template <typename Enum, typename To>
struct FlaggedMapping {
  Enum value;
  To plain;
  To flagged;
};

// The `flagged` (flag set) or `plain` of value's row; `unknown` when it has
// none.
template <typename Row, size_t N, typename Enum, typename To>
constexpr To mapOf(const Row (&rows)[N], Enum value, bool flag, To unknown) {
  const Row* row = rowOf(rows, value);
  if (row == nullptr) return unknown;
  return flag ? row->flagged : row->plain;
}

// Whether `value` is one of `members`: a set of enum values written as one
// list, instead of a switch whose every case returns true.
template <typename Enum>
constexpr bool isOneOf(Enum value, std::initializer_list<Enum> members) {
  for (Enum member : members)
    if (member == value) return true;
  return false;
}

}  // namespace jft
