#include "text_cursor.h"

#include <cctype>

namespace jft::conformance {
namespace {

bool isIdentifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
         c == '$' || c == '-';
}

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

void TextCursor::skipSpace() {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
      while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
    } else {
      return;
    }
  }
}

bool TextCursor::consume(std::string_view token) {
  if (!lookingAt(token)) return false;
  pos_ += token.size();
  return true;
}

Status TextCursor::expect(std::string_view token) {
  if (consume(token)) return Status::ok();
  return error("expected '" + std::string(token) + "'");
}

StatusOr<std::string> TextCursor::readString() {
  if (peek() != '"') return error("expected a string");
  ++pos_;
  std::string out;
  while (pos_ < text_.size() && text_[pos_] != '"') {
    char c = text_[pos_++];
    if (c != '\\') {
      out += c;
      continue;
    }
    if (pos_ >= text_.size()) break;
    char e = text_[pos_++];
    if (e == 'n') {
      out += '\n';
    } else if (e == 't') {
      out += '\t';
    } else if (hexDigit(e) >= 0 && pos_ < text_.size() && hexDigit(text_[pos_]) >= 0) {
      out += static_cast<char>(hexDigit(e) * 16 + hexDigit(text_[pos_++]));
    } else {
      out += e;
    }
  }
  if (pos_ >= text_.size()) return error("unterminated string");
  ++pos_;
  return out;
}

StatusOr<std::string> TextCursor::readIdentifier() {
  skipSpace();
  size_t start = pos_;
  while (pos_ < text_.size() && isIdentifierChar(text_[pos_])) ++pos_;
  if (pos_ == start) return error("expected an identifier");
  return std::string(text_.substr(start, pos_ - start));
}

StatusOr<std::string> TextCursor::readValueName() {
  if (peek() != '%') return error("expected a value name");
  size_t start = pos_++;
  while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
                                 text_[pos_] == '_' || text_[pos_] == '#'))
    ++pos_;
  if (pos_ == start + 1) return error("empty value name");
  return std::string(text_.substr(start, pos_ - start));
}

StatusOr<int64_t> TextCursor::readInteger() {
  skipSpace();
  size_t start = pos_;
  if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
  size_t digits = pos_;
  while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_])))
    ++pos_;
  if (pos_ == digits) {
    pos_ = start;
    return error("expected an integer");
  }
  return std::stoll(std::string(text_.substr(start, pos_ - start)));
}

StatusOr<std::string> TextCursor::readBalanced(std::string_view closers) {
  skipSpace();
  size_t start = pos_;
  int depth = 0;
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == '"') {
      JFT_ASSIGN_OR_RETURN(std::string ignored, readString());
      continue;
    }
    if (depth == 0 && (c == ',' || closers.find(c) != std::string_view::npos)) break;
    if (c == '(' || c == '[' || c == '{' || c == '<') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}' ||
               (c == '>' && (pos_ == 0 || text_[pos_ - 1] != '-'))) {
      if (--depth < 0) return error("unbalanced brackets");
    }
    ++pos_;
  }
  if (depth != 0) return error("unterminated value");
  return std::string(trimSpace(text_.substr(start, pos_ - start)));
}

int TextCursor::line() const {
  // Counted incrementally: the reader asks once per op, always moving forward.
  if (pos_ < counted_to_) counted_to_ = 0, counted_lines_ = 1;
  for (; counted_to_ < pos_ && counted_to_ < text_.size(); ++counted_to_)
    if (text_[counted_to_] == '\n') ++counted_lines_;
  return counted_lines_;
}

Status TextCursor::error(const std::string& what) const {
  size_t line_start = text_.rfind('\n', pos_ == 0 ? 0 : pos_ - 1);
  size_t col = line_start == std::string_view::npos ? pos_ + 1 : pos_ - line_start;
  return invalidArgument("generic text " + std::to_string(line()) + ":" +
                         std::to_string(col) + ": " + what);
}

}  // namespace jft::conformance
