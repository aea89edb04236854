#include "ir/text_cursor.h"

#include <charconv>

namespace jft::ir {

bool isWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_' || c == '$' || c == '.';
}

void TextCursor::skipBlanks() {
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
      while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
    } else {
      break;
    }
  }
}

bool TextCursor::atEnd() {
  skipBlanks();
  return pos_ >= text_.size();
}

char TextCursor::peek() {
  skipBlanks();
  return pos_ < text_.size() ? text_[pos_] : '\0';
}

size_t TextCursor::offset() {
  skipBlanks();
  return pos_;
}

bool TextCursor::startsWith(std::string_view literal) {
  skipBlanks();
  return text_.substr(pos_).starts_with(literal);
}

bool TextCursor::consume(std::string_view literal) {
  if (failed() || !startsWith(literal)) return false;
  pos_ += literal.size();
  return true;
}

bool TextCursor::consumeKeyword(std::string_view word) {
  if (failed() || !startsWith(word)) return false;
  const size_t end = pos_ + word.size();
  if (end < text_.size() && isWordChar(text_[end])) return false;
  pos_ = end;
  return true;
}

bool TextCursor::expect(std::string_view literal) {
  if (consume(literal)) return true;
  return fail("'" + std::string(literal) + "'");
}

std::optional<std::string_view> TextCursor::word() {
  if (failed()) return std::nullopt;
  skipBlanks();
  size_t end = pos_;
  while (end < text_.size() && isWordChar(text_[end])) ++end;
  if (end == pos_) return std::nullopt;
  std::string_view out = text_.substr(pos_, end - pos_);
  pos_ = end;
  return out;
}

bool TextCursor::integer(int64_t& out) {
  if (failed()) return false;
  skipBlanks();
  const char* begin = text_.data() + pos_;
  const char* end = text_.data() + text_.size();
  auto [ptr, ec] = std::from_chars(begin, end, out);
  if (ec != std::errc() || (ptr < end && isWordChar(*ptr) && *ptr != '.'))
    return fail(ec == std::errc::result_out_of_range ? "an integer that fits in 64 bits"
                                                     : "an integer");
  pos_ += static_cast<size_t>(ptr - begin);
  return true;
}

bool TextCursor::quoted(std::string& out) {
  if (!consume("\"")) return fail("a quoted string");
  out.clear();
  while (pos_ < text_.size()) {
    const char c = text_[pos_++];
    if (c == '"') return true;
    if (c != '\\') {
      out += c;
      continue;
    }
    if (pos_ >= text_.size()) break;
    const char e = text_[pos_++];
    if (e == '"' || e == '\\') {
      out += e;
    } else if (e == 'n') {
      out += '\n';
    } else if (e == 't') {
      out += '\t';
    } else {
      auto hex = [](char h) {
        if (h >= '0' && h <= '9') return h - '0';
        if (h >= 'a' && h <= 'f') return h - 'a' + 10;
        if (h >= 'A' && h <= 'F') return h - 'A' + 10;
        return -1;
      };
      const int high = hex(e);
      const int low = pos_ < text_.size() ? hex(text_[pos_]) : -1;
      if (high < 0 || low < 0) return failAt(pos_ - 2, "bad escape in a quoted string");
      ++pos_;
      out += static_cast<char>(high * 16 + low);
    }
  }
  return fail("the closing '\"' of a string");
}

std::string_view TextCursor::balancedUntil(std::string_view stops) {
  skipBlanks();
  const size_t begin = pos_;
  int depth = 0;
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (depth == 0 && stops.find(c) != std::string_view::npos) break;
    if (c == '"') {
      std::string ignored;
      if (!quoted(ignored)) return {};
      continue;
    }
    if (c == '-' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '>') {
      pos_ += 2;
      continue;
    }
    if (c == '(' || c == '[' || c == '{' || c == '<') ++depth;
    if (c == ')' || c == ']' || c == '}' || c == '>') {
      if (depth == 0) break;
      --depth;
    }
    ++pos_;
  }
  std::string_view out = text_.substr(begin, pos_ - begin);
  while (!out.empty() && (out.back() == ' ' || out.back() == '\n')) out.remove_suffix(1);
  return out;
}

bool TextCursor::fail(std::string_view expected) {
  if (failed()) return false;
  skipBlanks();
  std::string found = "end of text";
  if (pos_ < text_.size()) {
    size_t end = pos_;
    while (end < text_.size() && end - pos_ < 20 && text_[end] != '\n') ++end;
    found = "'" + std::string(text_.substr(pos_, end - pos_)) + "'";
  }
  return failAt(pos_, "expected " + std::string(expected) + ", found " + found);
}

bool TextCursor::failAt(size_t offset, std::string_view message) {
  if (failed()) return false;
  error_ = position(offset) + ": " + std::string(message);
  return false;
}

std::string TextCursor::position(size_t offset) const {
  int line = 1, col = 1;
  for (size_t i = 0; i < offset && i < text_.size(); ++i) {
    if (text_[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return std::to_string(line) + ":" + std::to_string(col);
}

Status TextCursor::status() const {
  if (!failed()) return Status::ok();
  return invalidArgument("IR text " + error_);
}

}  // namespace jft::ir
