// XLA_FLAGS parsing. The last occurrence of a flag wins, as in XLA.
#include "compiler/xla_flags.h"

#include <charconv>

namespace jft::compiler {
namespace {

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

std::vector<std::string_view> splitWhitespace(std::string_view text) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && isSpace(text[i])) ++i;
    size_t start = i;
    while (i < text.size() && !isSpace(text[i])) ++i;
    if (i > start) words.push_back(text.substr(start, i - start));
  }
  return words;
}

Status badValue(std::string_view word, std::string_view expected) {
  return invalidArgument("XLA_FLAGS: '" + std::string(word) + "': expected " +
                         std::string(expected));
}

}  // namespace

StatusOr<XlaFlags> parseXlaFlags(std::string_view text) {
  XlaFlags flags;
  for (std::string_view word : splitWhitespace(text)) {
    std::string_view name = word;
    std::string_view value;
    bool has_value = false;
    if (size_t eq = word.find('='); eq != std::string_view::npos) {
      name = word.substr(0, eq);
      value = word.substr(eq + 1);
      has_value = true;
    }
    if (name == "--xla_dump_to") {
      if (!has_value || value.empty()) return badValue(word, "--xla_dump_to=DIR");
      flags.dump_to = std::string(value);
    } else if (name == "--xla_gpu_autotune_level") {
      int level = -1;
      auto [end, error] =
          std::from_chars(value.data(), value.data() + value.size(), level);
      if (!has_value || error != std::errc() || end != value.data() + value.size() ||
          level < 0 || level > 4)
        return badValue(word, "an autotune level from 0 to 4");
      flags.autotune_level = level;
    } else if (name == "--xla_gpu_exclude_nondeterministic_ops") {
      if (!has_value || value == "true" || value == "1") {
        flags.exclude_nondeterministic_ops = true;
      } else if (value == "false" || value == "0") {
        flags.exclude_nondeterministic_ops = false;
      } else {
        return badValue(word, "true or false");
      }
    } else {
      flags.unknown.emplace_back(word);
    }
  }
  return flags;
}

}  // namespace jft::compiler
