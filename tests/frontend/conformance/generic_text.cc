#include "generic_text.h"

#include <fstream>
#include <sstream>

#include "text_cursor.h"

namespace jft::conformance {
namespace {

class GenericTextParser {
 public:
  GenericTextParser(std::string_view text, TextModule& module)
      : cursor_(text), module_(module) {}

  Status parseFile() {
    while (!cursor_.atEnd()) {
      if (cursor_.peek() == '#') {
        JFT_RETURN_IF_ERROR(parseAliasDefinition());
        continue;
      }
      TextOp op;
      JFT_RETURN_IF_ERROR(parseOp(op));
      module_.top.push_back(std::move(op));
    }
    return checkAliasesDefined();
  }

 private:
  Status parseAliasDefinition() {
    JFT_RETURN_IF_ERROR(cursor_.expect("#"));
    JFT_ASSIGN_OR_RETURN(std::string name, cursor_.readIdentifier());
    JFT_RETURN_IF_ERROR(cursor_.expect("="));
    if (!cursor_.lookingAt("loc(")) {
      // Attribute and type aliases are not needed by the checks: skip them.
      JFT_ASSIGN_OR_RETURN(std::string ignored, cursor_.readBalanced("\n"));
      return Status::ok();
    }
    JFT_ASSIGN_OR_RETURN(LocRef ref, parseLocWrapper());
    module_.aliases["#" + name] = ref;
    return Status::ok();
  }

  // loc( body )
  StatusOr<LocRef> parseLocWrapper() {
    JFT_RETURN_IF_ERROR(cursor_.expect("loc("));
    JFT_ASSIGN_OR_RETURN(LocRef ref, parseLocBody());
    JFT_RETURN_IF_ERROR(cursor_.expect(")"));
    return ref;
  }

  LocRef addLoc(TextLoc loc) {
    module_.locs.push_back(std::move(loc));
    return static_cast<LocRef>(module_.locs.size() - 1);
  }

  StatusOr<LocRef> parseLocBody() {
    TextLoc loc;
    if (cursor_.consume("#")) {
      JFT_ASSIGN_OR_RETURN(std::string name, cursor_.readIdentifier());
      loc.kind = TextLoc::Kind::Alias;
      loc.text = "#" + name;
      return addLoc(std::move(loc));
    }
    if (cursor_.consume("unknown")) return addLoc(std::move(loc));
    if (cursor_.consume("callsite(")) {
      loc.kind = TextLoc::Kind::CallSite;
      JFT_ASSIGN_OR_RETURN(LocRef callee, parseLocBody());
      JFT_RETURN_IF_ERROR(cursor_.expect("at"));
      JFT_ASSIGN_OR_RETURN(LocRef caller, parseLocBody());
      JFT_RETURN_IF_ERROR(cursor_.expect(")"));
      loc.children = {callee, caller};
      return addLoc(std::move(loc));
    }
    if (cursor_.consume("fused")) {
      loc.kind = TextLoc::Kind::Fused;
      if (cursor_.consume("<")) {
        JFT_ASSIGN_OR_RETURN(std::string metadata, cursor_.readBalanced(">"));
        JFT_RETURN_IF_ERROR(cursor_.expect(">"));
      }
      JFT_RETURN_IF_ERROR(cursor_.expect("["));
      while (!cursor_.consume("]")) {
        JFT_ASSIGN_OR_RETURN(LocRef child, parseLocBody());
        loc.children.push_back(child);
        if (!cursor_.consume(",") && cursor_.peek() != ']')
          return cursor_.error("expected ',' or ']' in fused location");
      }
      return addLoc(std::move(loc));
    }
    JFT_ASSIGN_OR_RETURN(loc.text, cursor_.readString());
    if (cursor_.consume(":")) {
      loc.kind = TextLoc::Kind::File;
      JFT_ASSIGN_OR_RETURN(loc.line, cursor_.readInteger());
      JFT_RETURN_IF_ERROR(cursor_.expect(":"));
      JFT_ASSIGN_OR_RETURN(loc.col, cursor_.readInteger());
      if (cursor_.consume("to")) {
        // "to :38" (same line) or "to 5:6"; the end is not needed.
        if (!cursor_.lookingAt(":")) {
          JFT_ASSIGN_OR_RETURN(int64_t end_line, cursor_.readInteger());
          (void)end_line;
        }
        JFT_RETURN_IF_ERROR(cursor_.expect(":"));
        JFT_ASSIGN_OR_RETURN(int64_t end_col, cursor_.readInteger());
        (void)end_col;
      }
      return addLoc(std::move(loc));
    }
    loc.kind = TextLoc::Kind::Name;
    if (cursor_.consume("(")) {
      JFT_ASSIGN_OR_RETURN(LocRef child, parseLocBody());
      JFT_RETURN_IF_ERROR(cursor_.expect(")"));
      loc.children.push_back(child);
    }
    return addLoc(std::move(loc));
  }

  Status checkAliasesDefined() const {
    for (const TextLoc& loc : module_.locs)
      if (loc.kind == TextLoc::Kind::Alias && !module_.aliases.count(loc.text))
        return invalidArgument("location alias " + loc.text +
                               " is used but never defined");
    return Status::ok();
  }

  // { name = value, unit_name, ... } closed by `closer`.
  Status parseAttrDict(std::string_view closer, std::vector<TextAttr>& out) {
    while (!cursor_.consume(closer)) {
      TextAttr attr;
      if (cursor_.peek() == '"') {
        JFT_ASSIGN_OR_RETURN(attr.name, cursor_.readString());
      } else {
        JFT_ASSIGN_OR_RETURN(attr.name, cursor_.readIdentifier());
      }
      if (cursor_.consume("=")) {
        JFT_ASSIGN_OR_RETURN(attr.value, cursor_.readBalanced("}"));
      }
      out.push_back(std::move(attr));
      if (!cursor_.consume(",") && !cursor_.lookingAt(closer))
        return cursor_.error("expected ',' or '" + std::string(closer) + "'");
    }
    return Status::ok();
  }

  Status parseResults(TextOp& op) {
    if (cursor_.peek() != '%') return Status::ok();
    std::vector<std::pair<std::string, int>> groups;
    do {
      JFT_ASSIGN_OR_RETURN(std::string name, cursor_.readValueName());
      int count = 1;
      if (cursor_.consume(":")) {
        JFT_ASSIGN_OR_RETURN(int64_t n, cursor_.readInteger());
        count = static_cast<int>(n);
      }
      groups.emplace_back(name, count);
    } while (cursor_.consume(","));
    JFT_RETURN_IF_ERROR(cursor_.expect("="));
    for (const auto& [name, count] : groups)
      for (int i = 0; i < count; ++i)
        op.results.push_back(canonicalValue(name, i, count));
    return Status::ok();
  }

  Status parseOp(TextOp& op) {
    cursor_.skipSpace();
    op.line = cursor_.line();
    JFT_RETURN_IF_ERROR(parseResults(op));
    JFT_ASSIGN_OR_RETURN(op.name, cursor_.readString());
    JFT_RETURN_IF_ERROR(cursor_.expect("("));
    while (!cursor_.consume(")")) {
      JFT_ASSIGN_OR_RETURN(std::string operand, cursor_.readValueName());
      op.operands.push_back(std::move(operand));
      if (!cursor_.consume(",") && cursor_.peek() != ')')
        return cursor_.error("expected ',' or ')' after an operand");
    }
    if (cursor_.peek() == '[') return cursor_.error("successor blocks are not supported");
    if (cursor_.consume("<{")) JFT_RETURN_IF_ERROR(parseAttrDict("}>", op.properties));
    if (cursor_.consume("(")) {
      do {
        TextRegion region;
        JFT_RETURN_IF_ERROR(parseRegion(region));
        op.regions.push_back(std::move(region));
      } while (cursor_.consume(","));
      JFT_RETURN_IF_ERROR(cursor_.expect(")"));
    }
    if (cursor_.consume("{")) JFT_RETURN_IF_ERROR(parseAttrDict("}", op.attributes));
    JFT_RETURN_IF_ERROR(cursor_.expect(":"));
    JFT_ASSIGN_OR_RETURN(std::string signature, cursor_.readBalanced("\n"));
    // The signature ends where a trailing loc(...) begins.
    size_t loc_at = signature.rfind(" loc(");
    std::string type_text = signature.substr(0, loc_at);
    JFT_ASSIGN_OR_RETURN(TextFunctionType types, parseTextFunctionType(type_text));
    op.operand_types = std::move(types.inputs);
    op.result_types = std::move(types.results);
    if (loc_at != std::string::npos) {
      TextCursor loc_cursor(std::string_view(signature).substr(loc_at + 1));
      std::swap(cursor_, loc_cursor);
      StatusOr<LocRef> loc = parseLocWrapper();
      std::swap(cursor_, loc_cursor);
      if (!loc.isOk()) return loc.status();
      op.loc = *loc;
    }
    return Status::ok();
  }

  Status parseRegion(TextRegion& region) {
    JFT_RETURN_IF_ERROR(cursor_.expect("{"));
    if (cursor_.consume("^")) {
      JFT_ASSIGN_OR_RETURN(std::string block_name, cursor_.readIdentifier());
      if (cursor_.consume("(")) {
        do {
          TextBlockArg arg;
          JFT_ASSIGN_OR_RETURN(arg.name, cursor_.readValueName());
          JFT_RETURN_IF_ERROR(cursor_.expect(":"));
          JFT_ASSIGN_OR_RETURN(std::string type_text, cursor_.readBalanced(")"));
          size_t loc_at = type_text.find(" loc(");
          JFT_ASSIGN_OR_RETURN(arg.type, parseTextType(type_text.substr(0, loc_at)));
          if (loc_at != std::string::npos) {
            TextCursor loc_cursor(std::string_view(type_text).substr(loc_at + 1));
            std::swap(cursor_, loc_cursor);
            StatusOr<LocRef> loc = parseLocWrapper();
            std::swap(cursor_, loc_cursor);
            if (!loc.isOk()) return loc.status();
            arg.loc = *loc;
          }
          region.args.push_back(std::move(arg));
        } while (cursor_.consume(","));
        JFT_RETURN_IF_ERROR(cursor_.expect(")"));
      }
      JFT_RETURN_IF_ERROR(cursor_.expect(":"));
    }
    while (!cursor_.consume("}")) {
      if (cursor_.peek() == '^')
        return cursor_.error("regions with several blocks are not supported");
      if (cursor_.atEnd()) return cursor_.error("unterminated region");
      TextOp op;
      JFT_RETURN_IF_ERROR(parseOp(op));
      region.ops.push_back(std::move(op));
    }
    return Status::ok();
  }

  TextCursor cursor_;
  TextModule& module_;
};

const TextAttr* findIn(const std::vector<TextAttr>& attrs, std::string_view key) {
  for (const TextAttr& a : attrs)
    if (a.name == key) return &a;
  return nullptr;
}

}  // namespace

const TextAttr* TextOp::property(std::string_view key) const {
  return findIn(properties, key);
}
const TextAttr* TextOp::attribute(std::string_view key) const {
  return findIn(attributes, key);
}

const TextOp* TextModule::moduleOp() const {
  for (const TextOp& op : top)
    if (op.name == "builtin.module") return &op;
  return nullptr;
}

std::vector<const TextOp*> TextModule::functions() const {
  std::vector<const TextOp*> out;
  const TextOp* module = moduleOp();
  if (!module || module->regions.empty()) return out;
  for (const TextOp& op : module->regions[0].ops)
    if (op.name == "func.func") out.push_back(&op);
  return out;
}

std::optional<FileFrame> TextModule::userFrame(LocRef ref) const {
  // Bounded: a self-referencing alias must not hang the test.
  for (int steps = 0; steps < 1000; ++steps) {
    if (ref < 0 || static_cast<size_t>(ref) >= locs.size()) return std::nullopt;
    const TextLoc& loc = locs[ref];
    switch (loc.kind) {
      case TextLoc::Kind::Unknown:
        return std::nullopt;
      case TextLoc::Kind::File:
        return FileFrame{loc.text, loc.line, loc.col};
      case TextLoc::Kind::Alias: {
        auto it = aliases.find(loc.text);
        if (it == aliases.end()) return std::nullopt;
        ref = it->second;
        break;
      }
      case TextLoc::Kind::Name:
      case TextLoc::Kind::CallSite:
        if (loc.children.empty()) return std::nullopt;
        ref = loc.children[0];
        break;
      case TextLoc::Kind::Fused:
        for (LocRef child : loc.children)
          if (auto frame = userFrame(child)) return frame;
        return std::nullopt;
    }
  }
  return std::nullopt;
}

std::string canonicalValue(std::string_view name, int result_index, int num_results) {
  std::string base(name.substr(0, name.find('#')));
  if (num_results == 1) return base;
  return base + "#" + std::to_string(result_index);
}

StatusOr<TextModule> parseGenericText(std::string_view text) {
  TextModule module;
  GenericTextParser parser(text, module);
  JFT_RETURN_IF_ERROR(parser.parseFile());
  return module;
}

StatusOr<TextModule> readGenericFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return notFound("cannot open " + path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  StatusOr<TextModule> module = parseGenericText(buffer.str());
  if (!module.isOk()) return module.status().withContext(path);
  return module;
}

}  // namespace jft::conformance
