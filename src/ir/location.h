// Source locations, as MLIR builtin locations describe them: file:line:col
// ranges, names, call sites and fused lists. Kept in one table per module;
// ops refer to entries by LocId so copies of ops stay cheap.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace jft::ir {

using LocId = uint32_t;
inline constexpr LocId kUnknownLoc = 0;

struct Location {
  enum class Kind : uint8_t { Unknown, File, Name, CallSite, Fused };
  Kind kind = Kind::Unknown;
  std::string text;  // File: file name; Name: the name
  int64_t line = 0, col = 0, end_line = 0, end_col = 0;  // File only
  // Name: {child} or {}; CallSite: {callee, caller}; Fused: the locations.
  std::vector<LocId> children;
  friend bool operator==(const Location&, const Location&) = default;
};

struct FileLocation {
  std::string file;
  int64_t line = 0, col = 0;
};

class LocationTable {
 public:
  LocationTable();  // entry 0 is the unknown location

  LocId add(Location loc);
  const Location& get(LocId id) const { return entries_.at(id); }
  size_t size() const { return entries_.size(); }

  // The innermost file position a user would look at: for a call site the
  // callee's frame, for a name its child, for a fused list its first file.
  std::optional<FileLocation> userFrame(LocId id) const;
  // One line for messages: "zoo.py:17:20 (jit(smoke)/mul)" or "unknown location".
  std::string describe(LocId id) const;

 private:
  std::vector<Location> entries_;
};

}  // namespace jft::ir
