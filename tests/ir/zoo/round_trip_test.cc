// The parser is the printer's inverse: every zoo program, imported by the
// frontend, printed, parsed and printed again gives the same text, in each
// print mode whose text keeps what it describes (a literal elided by
// max_dense_elements has lost its elements: tests/ir/parser_test.cc checks it
// is refused). The parsed module must also verify, as the imported one does.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "frontend/vhlo/import.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "zoo_fixtures.h"

namespace jft::ir {
namespace {

using testing::fixtureNames;
using testing::importFixture;

std::vector<std::pair<std::string, PrintOptions>> printModes() {
  PrintOptions plain, frames, full;
  frames.print_locations = true;
  full.print_locations = full.full_locations = true;
  return {{"plain", plain}, {"user frames", frames}, {"full locations", full}};
}

// The line an error message "IR text L:C: ..." points at.
std::string lineOfError(const std::string& text, const std::string& message) {
  const size_t at = message.find("IR text ");
  if (at == std::string::npos) return "";
  int line = std::atoi(message.c_str() + at + 8);
  size_t start = 0;
  while (--line > 0 && start != std::string::npos) {
    start = text.find('\n', start);
    if (start != std::string::npos) ++start;
  }
  if (start == std::string::npos) return "";
  return text.substr(start, text.find('\n', start) - start);
}

// First differing line of two texts, for a readable failure.
std::string firstDifference(const std::string& a, const std::string& b) {
  size_t line = 1, start = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    if (a[i] != b[i]) {
      return "line " + std::to_string(line) +
             ":\n  printed: " + a.substr(start, a.find('\n', start) - start) +
             "\n  reparsed: " + b.substr(start, b.find('\n', start) - start);
    }
    if (a[i] == '\n') {
      ++line;
      start = i + 1;
    }
  }
  return a.size() == b.size() ? "none" : "one text is a prefix of the other";
}

TEST(ZooRoundTrip, PrintParsePrintIsIdenticalInEveryMode) {
  const auto names = fixtureNames();
  ASSERT_GE(names.size(), 20u);
  for (const std::string& name : names) {
    auto module = importFixture(name);
    ASSERT_TRUE(module.isOk()) << name << ": " << module.status().toString();
    for (const auto& [mode, options] : printModes()) {
      SCOPED_TRACE(name + " (" + mode + ")");
      const std::string text = printModule(*module, options);
      auto parsed = parseModule(text);
      ASSERT_TRUE(parsed.isOk()) << parsed.status().toString() << "\n"
                                 << lineOfError(text, parsed.status().message());
      const std::string again = printModule(*parsed, options);
      EXPECT_EQ(text, again) << firstDifference(text, again);
      Status verified = verifyModule(*parsed);
      EXPECT_TRUE(verified.isOk()) << verified.toString();
    }
  }
}

}  // namespace
}  // namespace jft::ir
