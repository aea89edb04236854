// A read position in IR text (parser.h) and the lexing every part of the
// parser shares: blanks and `//` comments, punctuation, words, integers,
// quoted strings. The first error is kept with its line:column; later calls
// fail quietly, so each parse function just returns false up the stack.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "support/status.h"

namespace jft::ir {

class TextCursor {
 public:
  explicit TextCursor(std::string_view text) : text_(text) {}

  // Every query below skips blanks and comments first.
  bool atEnd();
  char peek();  // '\0' at the end
  bool startsWith(std::string_view literal);
  // Consumes `literal` when the text continues with it.
  bool consume(std::string_view literal);
  // Consumes `word` when it is not the start of a longer word.
  bool consumeKeyword(std::string_view word);
  // consume(), or an error naming what was expected.
  bool expect(std::string_view literal);
  // [A-Za-z0-9_$.]+ (callers decide whether a leading digit is welcome).
  std::optional<std::string_view> word();
  bool integer(int64_t& out);
  // A double-quoted string with the printer's escapes (\" \\ \n \XX).
  bool quoted(std::string& out);
  // Characters up to (not including) the first of `stops` outside brackets
  // and strings; `->` does not close an angle bracket. Blanks at the ends
  // are trimmed.
  std::string_view balancedUntil(std::string_view stops);

  // Records "line:col: expected <what>, found '<text>'" unless an error is
  // already held; always false.
  bool fail(std::string_view expected);
  // An error whose message is given whole, at byte `offset`.
  bool failAt(size_t offset, std::string_view message);
  bool failed() const { return !error_.empty(); }
  Status status() const;

  size_t offset();                            // after skipping blanks
  std::string position(size_t offset) const;  // "3:14"

 private:
  void skipBlanks();
  std::string_view text_;
  size_t pos_ = 0;
  std::string error_;
};

bool isWordChar(char c);

}  // namespace jft::ir
