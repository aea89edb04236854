#include "kernel_compiler/json.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace jft::kernel_compiler {
namespace {

constexpr int kMaxDepth = 64;

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  StatusOr<Json> parseDocument() {
    JFT_ASSIGN_OR_RETURN(Json value, parseValue(0));
    skipSpace();
    if (pos_ != text_.size()) return error("trailing characters after the JSON value");
    return value;
  }

 private:
  Status error(const std::string& what) const {
    return invalidArgument("json: " + what + " at offset " + std::to_string(pos_));
  }

  void skipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\r' || text_[pos_] == '\t')) {
      ++pos_;
    }
  }

  bool consume(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  StatusOr<Json> parseValue(int depth) {
    if (depth > kMaxDepth) return error("nesting too deep");
    skipSpace();
    if (pos_ >= text_.size()) return error("unexpected end of input");
    char c = text_[pos_];
    if (c == '{') return parseObject(depth);
    if (c == '[') return parseArray(depth);
    if (c == '"') {
      JFT_ASSIGN_OR_RETURN(std::string s, parseString());
      return Json(std::move(s));
    }
    if (consume("true")) return Json(true);
    if (consume("false")) return Json(false);
    if (consume("null")) return Json();
    return parseNumber();
  }

  StatusOr<Json> parseNumber() {
    size_t start = pos_;
    if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
    auto digits = [&] {
      size_t begin = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
      return pos_ > begin;
    };
    if (!digits()) return error("invalid value");
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      if (!digits()) return error("invalid number");
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (!digits()) return error("invalid number");
    }
    std::string literal(text_.substr(start, pos_ - start));
    return Json(std::strtod(literal.c_str(), nullptr));
  }

  StatusOr<uint32_t> parseHex4() {
    if (pos_ + 4 > text_.size()) return error("truncated \\u escape");
    uint32_t value = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text_[pos_++];
      value <<= 4;
      if (c >= '0' && c <= '9')
        value |= c - '0';
      else if (c >= 'a' && c <= 'f')
        value |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        value |= c - 'A' + 10;
      else
        return error("bad \\u escape");
    }
    return value;
  }

  static void appendUtf8(std::string& out, uint32_t code) {
    if (code < 0x80) {
      out.push_back(static_cast<char>(code));
    } else if (code < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (code >> 6)));
      out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
    } else if (code < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (code >> 12)));
      out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (code >> 18)));
      out.push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
    }
  }

  StatusOr<std::string> parseString() {
    ++pos_;  // opening quote
    std::string out;
    while (true) {
      if (pos_ >= text_.size()) return error("unterminated string");
      char c = text_[pos_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20)
        return error("control character in string");
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (pos_ >= text_.size()) return error("unterminated escape");
      char e = text_[pos_++];
      switch (e) {
        case '"':
          out.push_back('"');
          break;
        case '\\':
          out.push_back('\\');
          break;
        case '/':
          out.push_back('/');
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'u': {
          JFT_ASSIGN_OR_RETURN(uint32_t code, parseHex4());
          if (code >= 0xD800 && code < 0xDC00 && consume("\\u")) {
            JFT_ASSIGN_OR_RETURN(uint32_t low, parseHex4());
            if (low < 0xDC00 || low >= 0xE000) return error("bad surrogate pair");
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          }
          appendUtf8(out, code);
          break;
        }
        default:
          return error("unknown escape");
      }
    }
  }

  StatusOr<Json> parseArray(int depth) {
    ++pos_;
    Json::Array items;
    skipSpace();
    if (consume("]")) return Json(std::move(items));
    while (true) {
      JFT_ASSIGN_OR_RETURN(Json item, parseValue(depth + 1));
      items.push_back(std::move(item));
      skipSpace();
      if (consume("]")) return Json(std::move(items));
      if (!consume(",")) return error("expected ',' or ']'");
    }
  }

  StatusOr<Json> parseObject(int depth) {
    ++pos_;
    Json::Object members;
    skipSpace();
    if (consume("}")) return Json(std::move(members));
    while (true) {
      skipSpace();
      if (pos_ >= text_.size() || text_[pos_] != '"') return error("expected a key");
      JFT_ASSIGN_OR_RETURN(std::string key, parseString());
      skipSpace();
      if (!consume(":")) return error("expected ':'");
      JFT_ASSIGN_OR_RETURN(Json value, parseValue(depth + 1));
      members.insert_or_assign(std::move(key), std::move(value));
      skipSpace();
      if (consume("}")) return Json(std::move(members));
      if (!consume(",")) return error("expected ',' or '}'");
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
};

void dumpString(const std::string& s, std::string& out) {
  out.push_back('"');
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

void dumpNumber(double value, std::string& out) {
  char buf[40];
  if (!std::isfinite(value)) {
    out += "null";  // JSON has no NaN/Inf
    return;
  }
  if (value == std::floor(value) && std::fabs(value) < 1e15) {
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(value));
  } else {
    std::snprintf(buf, sizeof buf, "%.17g", value);
  }
  out += buf;
}

void dumpValue(const Json& value, std::string& out) {
  if (value.isNull()) {
    out += "null";
  } else if (value.isBool()) {
    out += value.asBool() ? "true" : "false";
  } else if (value.isNumber()) {
    dumpNumber(value.asNumber(), out);
  } else if (value.isString()) {
    dumpString(value.asString(), out);
  } else if (value.isArray()) {
    out.push_back('[');
    bool first = true;
    for (const Json& item : value.asArray()) {
      if (!first) out.push_back(',');
      first = false;
      dumpValue(item, out);
    }
    out.push_back(']');
  } else {
    out.push_back('{');
    bool first = true;
    for (const auto& [key, item] : value.asObject()) {
      if (!first) out.push_back(',');
      first = false;
      dumpString(key, out);
      out.push_back(':');
      dumpValue(item, out);
    }
    out.push_back('}');
  }
}

}  // namespace

bool Json::asBool() const {
  JFT_CHECK(isBool(), "json value is not a bool");
  return bool_;
}
double Json::asNumber() const {
  JFT_CHECK(isNumber(), "json value is not a number");
  return number_;
}
const std::string& Json::asString() const {
  JFT_CHECK(isString(), "json value is not a string");
  return string_;
}
const Json::Array& Json::asArray() const {
  JFT_CHECK(isArray(), "json value is not an array");
  return array_;
}
const Json::Object& Json::asObject() const {
  JFT_CHECK(isObject(), "json value is not an object");
  return object_;
}

const Json* Json::find(std::string_view key) const {
  if (!isObject()) return nullptr;
  auto it = object_.find(key);
  return it == object_.end() ? nullptr : &it->second;
}

Json& Json::set(std::string key, Json value) {
  if (isNull()) kind_ = Kind::kObject;
  JFT_CHECK(isObject(), "json set() on a non-object");
  object_.insert_or_assign(std::move(key), std::move(value));
  return *this;
}

std::string Json::dump() const {
  std::string out;
  dumpValue(*this, out);
  return out;
}

StatusOr<Json> Json::parse(std::string_view text) {
  return Parser(text).parseDocument();
}

namespace {

StatusOr<const Json*> member(const Json& object, std::string_view key) {
  const Json* value = object.find(key);
  if (value == nullptr)
    return invalidArgument("missing field '" + std::string(key) + "'");
  return value;
}

}  // namespace

StatusOr<double> requireNumber(const Json& object, std::string_view key) {
  JFT_ASSIGN_OR_RETURN(const Json* value, member(object, key));
  if (!value->isNumber())
    return invalidArgument("field '" + std::string(key) + "' is not a number");
  return value->asNumber();
}

StatusOr<int64_t> requireInt(const Json& object, std::string_view key) {
  JFT_ASSIGN_OR_RETURN(double number, requireNumber(object, key));
  if (number != std::floor(number) || std::fabs(number) > 9.0e15) {
    return invalidArgument("field '" + std::string(key) + "' is not an integer");
  }
  return static_cast<int64_t>(number);
}

StatusOr<std::string> requireString(const Json& object, std::string_view key) {
  JFT_ASSIGN_OR_RETURN(const Json* value, member(object, key));
  if (!value->isString())
    return invalidArgument("field '" + std::string(key) + "' is not a string");
  return value->asString();
}

StatusOr<bool> requireBool(const Json& object, std::string_view key) {
  JFT_ASSIGN_OR_RETURN(const Json* value, member(object, key));
  if (!value->isBool())
    return invalidArgument("field '" + std::string(key) + "' is not a bool");
  return value->asBool();
}

}  // namespace jft::kernel_compiler
