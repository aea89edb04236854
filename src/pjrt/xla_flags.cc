// XLA_FLAGS parsing.
#include "pjrt/xla_flags.h"

#include <cstdlib>

namespace jft::pjrt {
namespace {

std::vector<std::string_view> splitWhitespace(std::string_view text) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n')) ++i;
    size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t' && text[i] != '\n') ++i;
    if (i > start) words.push_back(text.substr(start, i - start));
  }
  return words;
}

}  // namespace

XlaFlags parseXlaFlags(std::string_view text) {
  XlaFlags flags;
  for (std::string_view word : splitWhitespace(text)) {
    std::string_view name = word;
    std::string_view value;
    bool hasValue = false;
    if (size_t eq = word.find('='); eq != std::string_view::npos) {
      name = word.substr(0, eq);
      value = word.substr(eq + 1);
      hasValue = true;
    }
    if (name == "--xla_dump_to" && hasValue) {
      flags.dumpTo = std::string(value);
    } else {
      flags.unknown.emplace_back(word);
    }
  }
  return flags;
}

XlaFlags xlaFlagsFromEnvironment() {
  const char* text = std::getenv("XLA_FLAGS");
  return parseXlaFlags(text != nullptr ? text : "");
}

}  // namespace jft::pjrt
