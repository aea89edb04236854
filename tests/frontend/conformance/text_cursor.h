// A position in MLIR text with the few lexical helpers the generic-form
// reader needs; every failure names the line and column it happened at.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "support/status.h"
#include "text_split.h"

namespace jft::conformance {

class TextCursor {
 public:
  explicit TextCursor(std::string_view text) : text_(text) {}

  // Skips blanks, newlines and `//` comments.
  void skipSpace();
  bool atEnd() {
    skipSpace();
    return pos_ >= text_.size();
  }
  // The next character after blanks, or '\0' at the end.
  char peek() {
    skipSpace();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  bool lookingAt(std::string_view token) {
    skipSpace();
    return text_.substr(pos_, token.size()) == token;
  }
  // Consumes `token` if it comes next (after blanks).
  bool consume(std::string_view token);
  Status expect(std::string_view token);

  // A quoted string with MLIR escapes (\" \\ \n \t and two hex digits).
  StatusOr<std::string> readString();
  // A bare identifier: letters, digits, '_', '.', '$', '-'.
  StatusOr<std::string> readIdentifier();
  // A value name "%name", "%12" or "%12#1" (the '#' suffix kept).
  StatusOr<std::string> readValueName();
  StatusOr<int64_t> readInteger();
  // Text up to, not including, the first ',' or one of `closers` at nesting
  // depth zero; brackets, strings and `->` arrows are stepped over.
  StatusOr<std::string> readBalanced(std::string_view closers);

  int line() const;
  Status error(const std::string& what) const;

 private:
  std::string_view text_;
  size_t pos_ = 0;
  mutable size_t counted_to_ = 0;
  mutable int counted_lines_ = 1;
};

}  // namespace jft::conformance
