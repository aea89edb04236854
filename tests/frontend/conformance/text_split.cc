#include "text_split.h"

#include <cctype>

namespace jft::conformance {
namespace {

bool opens(char c) {
  return c == '(' || c == '[' || c == '{' || c == '<';
}

bool closes(std::string_view text, size_t i) {
  char c = text[i];
  if (c == '>') return i == 0 || text[i - 1] != '-';
  return c == ')' || c == ']' || c == '}';
}

// Index just past the string literal starting at `i` (a '"').
size_t skipString(std::string_view text, size_t i) {
  for (++i; i < text.size(); ++i) {
    if (text[i] == '\\') {
      ++i;
    } else if (text[i] == '"') {
      return i + 1;
    }
  }
  return text.size();
}

}  // namespace

std::string_view trimSpace(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> splitTopLevel(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size();) {
    char c = text[i];
    if (c == '"') {
      i = skipString(text, i);
      continue;
    }
    if (opens(c)) {
      ++depth;
    } else if (closes(text, i)) {
      --depth;
    } else if (c == separator && depth == 0) {
      parts.push_back(trimSpace(text.substr(start, i - start)));
      start = i + 1;
    }
    ++i;
  }
  parts.push_back(trimSpace(text.substr(start)));
  return parts;
}

size_t matchingClose(std::string_view text, size_t open) {
  int depth = 0;
  for (size_t i = open; i < text.size();) {
    if (text[i] == '"') {
      i = skipString(text, i);
      continue;
    }
    if (opens(text[i])) {
      ++depth;
    } else if (closes(text, i) && --depth == 0) {
      return i;
    }
    ++i;
  }
  return std::string_view::npos;
}

}  // namespace jft::conformance
