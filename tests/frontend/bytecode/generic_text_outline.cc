#include "generic_text_outline.h"

#include <cctype>
#include <regex>
#include <sstream>

namespace jft::frontend::bytecode_test {
namespace {

class LocParser {
 public:
  LocParser(const std::string& text, const std::map<std::string, std::string>& aliases,
            int depth)
      : s_(text), aliases_(aliases), depth_(depth) {}

  std::string parse() {
    if (depth_ > 64) return "<too deep>";
    skipSpace();
    if (take("#loc")) {
      std::string name = "#loc";
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_])))
        name += s_[pos_++];
      auto it = aliases_.find(name);
      if (it == aliases_.end()) return "<bad alias " + name + ">";
      LocParser inner(it->second, aliases_, depth_ + 1);
      return inner.parse();
    }
    if (take("unknown")) return "unknown";
    if (take("callsite(")) {
      std::string callee = parse();
      skipSpace();
      take("at");
      std::string caller = parse();
      skipSpace();
      take(")");
      return "callsite(" + callee + "," + caller + ")";
    }
    if (take("fused")) {
      if (peek() == '<') {  // metadata: skip the balanced <...>
        int level = 0;
        do {
          if (s_[pos_] == '<') ++level;
          if (s_[pos_] == '>') --level;
          ++pos_;
        } while (pos_ < s_.size() && level > 0);
      }
      take("[");
      std::string out = "fused(";
      bool first = true;
      while (pos_ < s_.size() && peek() != ']') {
        if (!first) take(",");
        out += (first ? "" : ",") + parse();
        first = false;
        skipSpace();
      }
      take("]");
      return out + ")";
    }
    if (peek() == '"') {
      std::string str = quoted();
      if (peek() == '(') {
        take("(");
        std::string child = parse();
        skipSpace();
        take(")");
        return "name(\"" + str + "\"," + child + ")";
      }
      if (peek() == ':') {
        take(":");
        long line = number();
        long col = 0, end_line = line, end_col = 0;
        if (take(":")) col = number();
        end_col = col;
        skipSpace();
        if (take("to")) {
          skipSpace();
          if (take(":")) {
            end_col = number();
          } else {
            end_line = number();
            take(":");
            end_col = number();
          }
        }
        std::ostringstream out;
        out << "file(\"" << str << "\"," << line << "," << col << "," << end_line << ","
            << end_col << ")";
        return out.str();
      }
      return "name(\"" + str + "\",unknown)";
    }
    return "<unparsed " + s_.substr(pos_) + ">";
  }

 private:
  void skipSpace() {
    while (pos_ < s_.size() && s_[pos_] == ' ') ++pos_;
  }
  char peek() {
    skipSpace();
    return pos_ < s_.size() ? s_[pos_] : '\0';
  }
  bool take(const std::string& token) {
    skipSpace();
    if (s_.compare(pos_, token.size(), token) != 0) return false;
    pos_ += token.size();
    return true;
  }
  long number() {
    long value = 0;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_])))
      value = value * 10 + (s_[pos_++] - '0');
    return value;
  }
  std::string quoted() {
    std::string out;
    ++pos_;  // opening quote
    while (pos_ < s_.size() && s_[pos_] != '"') {
      if (s_[pos_] == '\\' && pos_ + 1 < s_.size()) {
        if (s_[pos_ + 1] == '\\') {
          out += '\\';
          pos_ += 2;
          continue;
        }
        out += static_cast<char>(std::stoi(s_.substr(pos_ + 1, 2), nullptr, 16));
        pos_ += 3;
        continue;
      }
      out += s_[pos_++];
    }
    ++pos_;
    return out;
  }

  std::string s_;
  const std::map<std::string, std::string>& aliases_;
  int depth_;
  size_t pos_ = 0;
};

// The body of the trailing "loc(...)" of a line, or "".
std::string trailingLocBody(const std::string& line) {
  size_t at = line.rfind(" loc(");
  if (at == std::string::npos) return "";
  std::string rest = line.substr(at + 5);
  while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\r')) rest.pop_back();
  if (rest.empty() || rest.back() != ')') return "";
  rest.pop_back();
  return rest;
}

// Splits the "<{...}>" that follows position `from` into top-level
// "key = value" entries.
std::vector<std::pair<std::string, std::string>> splitProps(const std::string& line,
                                                            size_t from) {
  std::vector<std::pair<std::string, std::string>> props;
  size_t open = line.find("<{", from);
  if (open == std::string::npos) return props;
  int depth = 0;
  bool in_string = false;
  std::string entry;
  auto flush = [&] {
    size_t eq = entry.find(" = ");
    if (eq != std::string::npos) {
      size_t start = entry.find_first_not_of(' ');
      props.emplace_back(entry.substr(start, eq - start), entry.substr(eq + 3));
    }
    entry.clear();
  };
  for (size_t i = open + 2; i < line.size(); ++i) {
    char c = line[i];
    if (in_string) {
      entry += c;
      if (c == '\\' && i + 1 < line.size())
        entry += line[++i];
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    if (c == '-' && i + 1 < line.size() && line[i + 1] == '>') {  // "->" is not a bracket
      entry += "->";
      ++i;
      continue;
    }
    if (c == '(' || c == '[' || c == '{' || c == '<') ++depth;
    if (c == ')' || c == ']' || c == '>') --depth;
    if (c == '}') {
      if (depth == 0) {
        flush();
        break;
      }
      --depth;
    }
    if (c == ',' && depth == 0) {
      flush();
      continue;
    }
    entry += c;
  }
  return props;
}

int countChar(const std::string& s, char c) {
  int n = 0;
  for (char x : s) n += x == c;
  return n;
}

}  // namespace

std::string canonicalTextLoc(const std::string& body,
                             const std::map<std::string, std::string>& aliases) {
  return LocParser(body, aliases, 0).parse();
}

Outline readOutline(const std::string& text) {
  static const std::regex op_line(
      R"re(^\s*(%[A-Za-z0-9_]+(:(\d+))? = )?"([A-Za-z_][A-Za-z0-9_.$]*)"\(([^)]*)\))re");
  static const std::regex block_line(R"re(^\s*\^bb\d+(\((.*)\))?:)re");
  static const std::regex alias_line(R"re(^(#loc\d*) = loc\((.*)\)\s*$)re");
  static const std::regex module_name(
      R"xx("builtin.module"\(\) <\{[^}]*sym_name = "([^"]*)")xx");

  std::map<std::string, std::string> aliases;
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, alias_line)) {
      aliases[m[1]] = m[2];
      continue;
    }
    lines.push_back(line);
  }
  Outline outline;
  for (const std::string& line : lines) {
    std::smatch m;
    if (std::regex_search(line, m, block_line)) {
      OutlineItem item;
      item.is_block = true;
      item.num_operands = countChar(m[2].str(), '%');
      outline.items.push_back(item);
      continue;
    }
    if (!std::regex_search(line, m, op_line)) continue;
    OutlineItem item;
    item.name = m[4];
    item.num_results = m[1].matched ? (m[3].matched ? std::stoi(m[3]) : 1) : 0;
    item.num_operands = countChar(m[5].str(), '%');
    item.props = splitProps(line, size_t(m.position(0) + m.length(0)));
    bool opens_region = line.size() >= 2 && line.compare(line.size() - 2, 2, "({") == 0;
    if (!opens_region) {
      std::string body = trailingLocBody(line);
      if (!body.empty()) item.loc = canonicalTextLoc(body, aliases);
    }
    std::smatch name_match;
    if (item.name == "builtin.module" && std::regex_search(line, name_match, module_name))
      outline.module_sym_name = name_match[1];
    outline.items.push_back(item);
  }
  return outline;
}

}  // namespace jft::frontend::bytecode_test
