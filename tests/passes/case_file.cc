#include "case_file.h"

#include <set>
#include <sstream>

namespace jft::passes::testing {
namespace {

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// The text after `// KEY:` when the line is that directive.
bool directive(std::string_view line, std::string_view key, std::string& value) {
  line = trimmed(line);
  if (!line.starts_with("//")) return false;
  line = trimmed(line.substr(2));
  if (!line.starts_with(key)) return false;
  value = std::string(trimmed(line.substr(key.size())));
  return true;
}

}  // namespace

StatusOr<std::vector<PassCase>> parseCaseFile(const std::string& file_name,
                                              const std::string& text) {
  std::vector<PassCase> cases;
  std::set<std::string> names;
  const std::string pass = file_name.substr(0, file_name.rfind('.'));
  std::istringstream lines(text);
  bool in_expected = false;
  int number = 0;
  auto fail = [&](const std::string& message) {
    return invalidArgument(file_name + ":" + std::to_string(number) + ": " + message);
  };
  auto finish = [&]() -> Status {
    if (cases.empty()) return Status::ok();
    const PassCase& c = cases.back();
    if (!in_expected && c.expect == PassCase::Expect::Output)
      return invalidArgument(file_name + ":" + std::to_string(c.line) + ": case '" +
                             c.name + "' has no // EXPECT line");
    return Status::ok();
  };
  for (std::string line; std::getline(lines, line);) {
    ++number;
    std::string value;
    if (directive(line, "CASE:", value)) {
      JFT_RETURN_IF_ERROR(finish());
      if (value.empty()) return fail("a CASE needs a name");
      if (!names.insert(value).second) return fail("case '" + value + "' is named twice");
      PassCase c;
      c.pass = pass;
      c.file = file_name;
      c.name = value;
      c.line = number;
      c.input = std::string(number, '\n');
      cases.push_back(std::move(c));
      in_expected = false;
      continue;
    }
    if (cases.empty()) continue;  // the file's description
    PassCase& c = cases.back();
    const bool done = in_expected || c.expect != PassCase::Expect::Output;
    if (directive(line, "EXPECT-ERROR:", value)) {
      if (done) return fail("a second EXPECT in case '" + c.name + "'");
      if (value.empty()) return fail("EXPECT-ERROR needs the words the error must hold");
      c.expect = PassCase::Expect::Error;
      c.error = value;
      continue;
    }
    if (directive(line, "EXPECT:", value)) {
      if (done) return fail("a second EXPECT in case '" + c.name + "'");
      if (value == "unchanged") {
        c.expect = PassCase::Expect::Unchanged;
      } else if (value.empty()) {
        in_expected = true;
        c.expected = std::string(number, '\n');
      } else {
        return fail("EXPECT: takes nothing or 'unchanged', not '" + value + "'");
      }
      continue;
    }
    if (in_expected) {
      c.expected += line + "\n";
    } else if (c.expect == PassCase::Expect::Output) {
      c.input += line + "\n";
    } else if (!trimmed(line).empty() && !trimmed(line).starts_with("//")) {
      return fail("IR after the EXPECT line of case '" + c.name + "'");
    }
  }
  JFT_RETURN_IF_ERROR(finish());
  return cases;
}

}  // namespace jft::passes::testing
