#include "ir/location.h"

namespace jft::ir {

LocationTable::LocationTable() { entries_.push_back(Location{}); }

LocId LocationTable::add(Location loc) {
  if (loc.kind == Location::Kind::Unknown && loc.children.empty()) return kUnknownLoc;
  entries_.push_back(std::move(loc));
  return static_cast<LocId>(entries_.size() - 1);
}

std::optional<FileLocation> LocationTable::userFrame(LocId id) const {
  // Iterative walk with a bound: tables are acyclic by construction, but a
  // bound keeps a corrupted table from hanging a diagnostic.
  for (int steps = 0; steps < 256 && id < entries_.size(); ++steps) {
    const Location& loc = entries_[id];
    switch (loc.kind) {
      case Location::Kind::Unknown:
        return std::nullopt;
      case Location::Kind::File:
        return FileLocation{loc.text, loc.line, loc.col};
      case Location::Kind::Name:
      case Location::Kind::CallSite:
        if (loc.children.empty()) return std::nullopt;
        id = loc.children[0];
        break;
      case Location::Kind::Fused:
        for (LocId child : loc.children)
          if (auto frame = userFrame(child)) return frame;
        return std::nullopt;
    }
  }
  return std::nullopt;
}

namespace {

// The outermost name of a location: "jit(smoke)/mul".
std::optional<std::string> firstName(const std::vector<Location>& entries, LocId id) {
  for (int steps = 0; steps < 256 && id < entries.size(); ++steps) {
    const Location& loc = entries[id];
    if (loc.kind == Location::Kind::Name) return loc.text;
    if (loc.children.empty()) return std::nullopt;
    id = loc.children[0];
  }
  return std::nullopt;
}

}  // namespace

std::string LocationTable::describe(LocId id) const {
  std::string out;
  if (auto frame = userFrame(id))
    out = frame->file + ":" + std::to_string(frame->line) + ":" +
          std::to_string(frame->col);
  if (auto name = firstName(entries_, id)) {
    if (out.empty()) return *name;
    return out + " (" + *name + ")";
  }
  return out.empty() ? std::string("unknown location") : out;
}

}  // namespace jft::ir
