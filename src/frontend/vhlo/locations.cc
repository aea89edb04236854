#include "frontend/vhlo/locations.h"

namespace jft::frontend::vhlo {
namespace {

// Deeper nesting than this (call stacks of call stacks...) is cut off.
constexpr int kMaxLocationDepth = 128;

}  // namespace

std::string LocationImporter::where(ir::LocId id) const {
  if (auto frame = table_.userFrame(id))
    return frame->file + ":" + std::to_string(frame->line) + ":" +
           std::to_string(frame->col);
  return table_.describe(id);
}

ir::LocId LocationImporter::importAt(const MAttr* loc, int depth) {
  if (!loc || loc->kind != MAttr::Kind::Location || depth > kMaxLocationDepth)
    return ir::kUnknownLoc;
  if (auto it = imported_.find(loc); it != imported_.end()) return it->second;

  ir::Location out;
  auto child = [&](size_t i) {
    return i < loc->elements.size() ? importAt(loc->elements[i].get(), depth + 1)
                                    : ir::kUnknownLoc;
  };
  switch (loc->loc_kind) {
    case MAttr::LocKind::Unknown:
      return ir::kUnknownLoc;
    case MAttr::LocKind::FileLineCol: {
      out.kind = ir::Location::Kind::File;
      out.text = loc->str;
      int64_t* fields[] = {&out.line, &out.col, &out.end_line, &out.end_col};
      for (size_t i = 0; i < loc->ints.size() && i < 4; ++i) *fields[i] = loc->ints[i];
      break;
    }
    case MAttr::LocKind::Name: {
      out.kind = ir::Location::Kind::Name;
      out.text = loc->str;
      if (ir::LocId c = child(0); c != ir::kUnknownLoc) out.children.push_back(c);
      break;
    }
    case MAttr::LocKind::CallSite:
      out.kind = ir::Location::Kind::CallSite;
      out.children = {child(0), child(1)};
      break;
    case MAttr::LocKind::Fused:
      out.kind = ir::Location::Kind::Fused;
      for (size_t i = 0; i < loc->elements.size(); ++i) out.children.push_back(child(i));
      break;
  }
  ir::LocId id = table_.add(std::move(out));
  imported_.emplace(loc, id);
  return id;
}

}  // namespace jft::frontend::vhlo
