// A generic-MLIR-like text dump of the tree, for diagnosing the reader and
// what it hands the importer. Not a stable format: tests must not compare it.
#include <cstdio>

#include "frontend/bytecode/reader.h"
#include "frontend/bytecode/values.h"

namespace jft::frontend {
namespace {

using bytecode::typeToString;

// Appends until the budget is spent; attribute graphs may share children,
// so the budget also bounds the time a dump takes.
class Out {
 public:
  explicit Out(size_t max_chars) : max_(max_chars) {}
  bool full() const { return text_.size() >= max_; }
  void add(const std::string& s) {
    if (full()) return;
    text_ += s;
    if (full()) text_ += "...<cut>";
  }
  std::string take() { return std::move(text_); }

 private:
  size_t max_;
  std::string text_;
};

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20 || c >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%02X", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  return out + "\"";
}

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

void attr(Out& out, const MAttr* a);

void entries(Out& out, const std::vector<std::pair<std::string, MAttrPtr>>& list) {
  out.add("{");
  for (size_t i = 0; i < list.size() && !out.full(); ++i) {
    out.add((i ? ", " : "") + list[i].first + " = ");
    attr(out, list[i].second.get());
  }
  out.add("}");
}

void location(Out& out, const MAttr* a) {
  switch (a->loc_kind) {
    case MAttr::LocKind::Unknown:
      out.add("unknown");
      return;
    case MAttr::LocKind::FileLineCol: {
      std::string text = quoted(a->str);
      for (size_t i = 0; i < a->ints.size() && i < 4; ++i)
        text += (i == 2 ? " to " : ":") + std::to_string(a->ints[i]);
      out.add(text);
      return;
    }
    case MAttr::LocKind::Name:
      out.add(quoted(a->str));
      if (!a->elements.empty()) {
        out.add("(");
        location(out, a->elements[0].get());
        out.add(")");
      }
      return;
    case MAttr::LocKind::CallSite:
      out.add("callsite(");
      if (a->elements.size() == 2) {
        location(out, a->elements[0].get());
        out.add(" at ");
        location(out, a->elements[1].get());
      }
      out.add(")");
      return;
    case MAttr::LocKind::Fused:
      out.add("fused[");
      for (size_t i = 0; i < a->elements.size() && !out.full(); ++i) {
        if (i) out.add(", ");
        location(out, a->elements[i].get());
      }
      out.add("]");
      return;
  }
}

std::string hexBytes(const std::vector<uint8_t>& data, size_t limit = 64) {
  std::string text = "0x";
  for (size_t i = 0; i < data.size() && i < limit; ++i) {
    char buf[4];
    std::snprintf(buf, sizeof buf, "%02X", data[i]);
    text += buf;
  }
  return data.size() > limit ? text + "..." : text;
}

void attr(Out& out, const MAttr* a) {
  if (!a) return out.add("<null>");
  if (out.full()) return;
  switch (a->kind) {
    case MAttr::Kind::Unit:
      return out.add("unit");
    case MAttr::Kind::Bool:
      return out.add(a->int_value ? "true" : "false");
    case MAttr::Kind::Integer:
      return out.add(std::to_string(a->int_value) +
                     (a->type ? " : " + typeToString(a->type.get()) : ""));
    case MAttr::Kind::Float:
      return out.add(number(a->float_value) +
                     (a->type ? " : " + typeToString(a->type.get()) : ""));
    case MAttr::Kind::String:
      return out.add(quoted(a->str));
    case MAttr::Kind::Array:
      out.add("[");
      for (size_t i = 0; i < a->elements.size() && !out.full(); ++i) {
        if (i) out.add(", ");
        attr(out, a->elements[i].get());
      }
      return out.add("]");
    case MAttr::Kind::Dictionary:
      return entries(out, a->entries);
    case MAttr::Kind::TypeAttr:
      return out.add(typeToString(a->type.get()));
    case MAttr::Kind::DenseElements:
      return out.add("dense<" + hexBytes(a->data) + "> : " + typeToString(a->type.get()));
    case MAttr::Kind::DenseArray: {
      std::string text = "array<" + typeToString(a->type.get());
      if (!a->ints.empty() || a->data.empty()) {
        for (size_t i = 0; i < a->ints.size(); ++i)
          text += (i ? ", " : ": ") + std::to_string(a->ints[i]);
      } else {
        text += ": " + hexBytes(a->data);
      }
      return out.add(text + ">");
    }
    case MAttr::Kind::DenseString: {
      std::string text = "dense<[";
      for (size_t i = 0; i < a->strings.size() && i < 16; ++i)
        text += (i ? ", " : "") + quoted(a->strings[i]);
      return out.add(text + "]> : " + typeToString(a->type.get()));
    }
    case MAttr::Kind::SymbolRef: {
      std::string text = "@" + a->str;
      for (const auto& nested : a->elements) text += "::@" + nested->str;
      return out.add(text);
    }
    case MAttr::Kind::Enum:
      return out.add("#" + a->name + "<" + a->str + ">");
    case MAttr::Kind::Struct:
      out.add("#" + a->name + "<");
      entries(out, a->entries);
      return out.add(">");
    case MAttr::Kind::IntList: {
      std::string text = "[";
      for (size_t i = 0; i < a->ints.size(); ++i)
        text += (i ? ", " : "") + std::to_string(a->ints[i]);
      return out.add(text + "]");
    }
    case MAttr::Kind::Location:
      out.add("loc(");
      location(out, a);
      return out.add(")");
    case MAttr::Kind::Opaque:
      return out.add("#" + a->dialect + "<opaque " +
                     (a->name.empty() ? "" : a->name + " ") +
                     (a->str.empty() ? hexBytes(a->data) : quoted(a->str)) + ">");
  }
}

void op(Out& out, const MOp& o, int indent);

void region(Out& out, const MRegion& r, int indent) {
  out.add("({\n");
  for (size_t b = 0; b < r.blocks.size() && !out.full(); ++b) {
    const MBlock& block = r.blocks[b];
    std::string header(indent, ' ');
    header += "^bb" + std::to_string(b) + "(";
    out.add(header);
    for (size_t i = 0; i < block.args.size() && !out.full(); ++i) {
      out.add(
          (i ? ", %" : "%") + std::to_string(block.args[i]) + ": " +
          typeToString(i < block.arg_types.size() ? block.arg_types[i].get() : nullptr) +
          " ");
      if (i < block.arg_locs.size()) attr(out, block.arg_locs[i].get());
    }
    out.add("):\n");
    for (const MOp& child : block.ops) op(out, child, indent + 2);
  }
  out.add(std::string(indent, ' ') + "})");
}

void op(Out& out, const MOp& o, int indent) {
  std::string text(indent, ' ');
  for (size_t i = 0; i < o.results.size(); ++i)
    text += (i ? ", %" : "%") + std::to_string(o.results[i]);
  if (!o.results.empty()) text += " = ";
  text += quoted(o.name) + "(";
  for (size_t i = 0; i < o.operands.size(); ++i)
    text += (i ? ", %" : "%") + std::to_string(o.operands[i]);
  text += ")";
  if (!o.successors.empty()) {
    text += "[";
    for (size_t i = 0; i < o.successors.size(); ++i)
      text += (i ? ", ^bb" : "^bb") + std::to_string(o.successors[i]);
    text += "]";
  }
  out.add(text + " ");
  if (!o.attrs.empty()) {
    entries(out, o.attrs);
    out.add(" ");
  }
  for (const MRegion& r : o.regions) {
    region(out, r, indent + 2);
    out.add(" ");
  }
  std::string sig = ": (";
  sig += ") -> (";
  for (size_t i = 0; i < o.result_types.size(); ++i)
    sig += (i ? ", " : "") + typeToString(o.result_types[i].get());
  out.add(sig + ") ");
  attr(out, o.loc.get());
  out.add("\n");
}

}  // namespace

std::string dumpAttr(const MAttr* a, size_t max_chars) {
  Out out(max_chars);
  attr(out, a);
  return out.take();
}

std::string dumpTree(const MTree& tree, size_t max_chars) {
  Out out(max_chars);
  std::string header = "// producer " + quoted(tree.producer) + ", bytecode version " +
                       std::to_string(tree.version) + ", dialects";
  for (const auto& d : tree.dialects) header += " " + d;
  out.add(header + "\n");
  for (const MOp& o : tree.top) op(out, o, 0);
  return out.take();
}

}  // namespace jft::frontend
