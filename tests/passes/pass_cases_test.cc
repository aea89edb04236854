// Runs every case of tests/passes/cases/<pass>.ir (format: case_file.h)
// through its pass: one gtest per case, named <pass>.<case>, whose failure
// names the file and line. The expected side is parsed and printed like the
// output, so cases compare structure, not spelling.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <map>

#include "case_file.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "passes/approx_top_k.h"
#include "passes/canonicalize.h"
#include "passes/complex_reduce.h"
#include "passes/complex_scatter.h"
#include "passes/cse.h"
#include "passes/dce.h"
#include "passes/inline_calls.h"
#include "passes/simplify.h"

namespace jft::passes::testing {
namespace {

namespace fs = std::filesystem;

using PassFn = std::function<StatusOr<bool>(ir::Module&)>;

const std::map<std::string, PassFn>& passes() {
  static const std::map<std::string, PassFn> table = {
      {"canonicalize", [](ir::Module& m) -> StatusOr<bool> { return canonicalize(m); }},
      {"simplify", [](ir::Module& m) -> StatusOr<bool> { return simplifyAlgebra(m); }},
      {"cse",
       [](ir::Module& m) -> StatusOr<bool> { return eliminateCommonSubexpressions(m); }},
      {"dce", [](ir::Module& m) -> StatusOr<bool> { return eliminateDeadCode(m); }},
      {"inline", [](ir::Module& m) { return inlineCalls(m); }},
      {"approx_top_k", [](ir::Module& m) { return expandApproxTopK(m); }},
      {"complex_reduce",
       [](ir::Module& m) -> StatusOr<bool> { return splitComplexReduces(m); }},
      {"complex_scatter",
       [](ir::Module& m) -> StatusOr<bool> { return expandComplexScatters(m); }},
  };
  return table;
}

fs::path casesDir() {
  return fs::path(JFT_PASS_CASES_DIR);
}

// Every case of every file; a file that does not load becomes one case
// that fails with the reason.
std::vector<PassCase> allCases() {
  std::vector<PassCase> all;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(casesDir()))
    if (entry.path().extension() == ".ir") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& path : files) {
    std::ifstream in(path);
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    auto cases = parseCaseFile(path.filename().string(), text);
    if (!cases.isOk()) {
      PassCase broken;
      broken.pass = path.stem().string();
      broken.file = path.filename().string();
      broken.name = "file_does_not_load";
      broken.expect = PassCase::Expect::Error;
      broken.error = "\x01" + cases.status().message();  // never matched
      all.push_back(std::move(broken));
      continue;
    }
    for (PassCase& c : *cases) all.push_back(std::move(c));
  }
  return all;
}

std::string where(const PassCase& c) {
  return "case '" + c.name + "' at " + c.file + ":" + std::to_string(c.line);
}

}  // namespace

// How gtest names a case in its messages (instead of its bytes).
void PrintTo(const PassCase& c, std::ostream* out) {
  *out << where(c);
}

namespace {

// What is wrong with the pass's work on case `c`; "" when it is right.
std::string runCase(const PassCase& c) {
  if (c.error.starts_with("\x01")) return c.error.substr(1);
  auto pass = passes().find(c.pass);
  if (pass == passes().end())
    return "no pass is named '" + c.pass + "' (the file's name)";
  auto parsed = ir::parseModule(c.input);
  if (!parsed.isOk()) return c.file + ": " + parsed.status().message();
  ir::Module m = std::move(parsed).value();
  // Locations are compared only where a case writes some.
  ir::PrintOptions options;
  options.print_locations = options.full_locations =
      c.input.find("loc(") != std::string::npos ||
      c.expected.find("loc(") != std::string::npos;
  const std::string before = ir::printModule(m, options);
  StatusOr<bool> changed = pass->second(m);
  if (c.expect == PassCase::Expect::Error) {
    if (changed.isOk())
      return "the pass succeeded; expected an error holding '" + c.error + "'";
    if (changed.status().message().find(c.error) == std::string::npos)
      return "the error does not hold '" + c.error + "': " + changed.status().message();
    return "";
  }
  if (!changed.isOk()) return "the pass failed: " + changed.status().toString();
  Status verified = ir::verifyModule(m);
  if (!verified.isOk()) return "the output does not verify: " + verified.toString();
  const std::string after = ir::printModule(m, options);
  // For whoever writes a case: JFT_PASS_CASES_SHOW=1 prints what the pass
  // made of it, to check by hand against the behaviour the case is about.
  if (const char* show = std::getenv("JFT_PASS_CASES_SHOW"); show && *show == '1')
    std::cout << "==== " << where(c) << "\n" << after;
  if (c.expect == PassCase::Expect::Unchanged) {
    if (*changed) return "the pass reported a change; it made:\n" + after;
    if (after != before) return "the pass reported no change but made:\n" + after;
    return "";
  }
  auto expected = ir::parseModule(c.expected);
  if (!expected.isOk()) return c.file + " (expected IR): " + expected.status().message();
  const std::string want = ir::printModule(*expected, options);
  if (after != want)
    return "the output differs.\ninput:\n" + before + "expected:\n" + want + "actual:\n" +
           after;
  if (!*changed) return "the pass made the expected IR but reported no change";
  // One run reaches the pass's fixed point: a second finds nothing to do.
  StatusOr<bool> again = pass->second(m);
  if (!again.isOk()) return "a second run failed: " + again.status().toString();
  if (*again) return "a second run changed:\n" + ir::printModule(m, options);
  return "";
}

class PassCases : public ::testing::TestWithParam<PassCase> {};

TEST_P(PassCases, Run) {
  const PassCase& c = GetParam();
  const std::string failure = runCase(c);
  EXPECT_TRUE(failure.empty()) << where(c) << ": " << failure;
}

// The runner catches a wrong expectation of each kind (a case file whose
// cases were all wrong must not pass).
TEST(PassCaseFiles, WrongExpectationsFail) {
  const std::string keeps_effect =
      "func.func @main(%x: tensor<f32>) -> tensor<f32> {\n"
      "  %e = stablehlo.custom_call %x {call_target_name = \"t\", has_side_effect = "
      "true} "
      ": tensor<f32>\n"
      "  return %x : tensor<f32>\n"
      "}\n";
  const std::string drops_dead =
      "func.func @main(%x: tensor<f32>) -> tensor<f32> {\n"
      "  %d = stablehlo.negate %x : tensor<f32>\n"
      "  return %x : tensor<f32>\n"
      "}\n";
  auto cases = parseCaseFile(
      "dce.ir", "// CASE: removes_an_effect\n" + keeps_effect + "// EXPECT:\n" +
                    drops_dead + "// CASE: claims_unchanged\n" + drops_dead +
                    "// EXPECT: unchanged\n" + "// CASE: claims_an_error\n" + drops_dead +
                    "// EXPECT-ERROR: boom\n" + "// CASE: right\n" + drops_dead +
                    "// EXPECT:\n" +
                    "func.func @main(%y: tensor<f32>) -> tensor<f32> {\n"
                    "  return %y : tensor<f32>\n}\n");
  ASSERT_TRUE(cases.isOk()) << cases.status().toString();
  ASSERT_EQ(cases->size(), 4u);
  EXPECT_NE(runCase((*cases)[0]).find("the output differs"), std::string::npos);
  EXPECT_NE(runCase((*cases)[1]).find("reported a change"), std::string::npos);
  EXPECT_NE(runCase((*cases)[2]).find("the pass succeeded"), std::string::npos);
  EXPECT_EQ(runCase((*cases)[3]), "");
}

std::string testName(const ::testing::TestParamInfo<PassCase>& info) {
  std::string name = info.param.pass + "_" + info.param.name;
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Cases, PassCases, ::testing::ValuesIn(allCases()), testName);

// Each of the passes has its case file, with cases in it: a file renamed or
// emptied must not pass silently.
TEST(PassCaseFiles, EveryPassHasCases) {
  std::map<std::string, int> counts;
  for (const PassCase& c : allCases()) ++counts[c.pass];
  for (const auto& [name, fn] : passes()) EXPECT_GE(counts[name], 3) << name;
}

// The case file format itself: what it accepts and what it refuses.
TEST(PassCaseFiles, FormatIsCheckedLineByLine) {
  auto ok = parseCaseFile("dce.ir",
                          "// about the file\n"
                          "// CASE: a\n"
                          "func.func @main() {\n"
                          "  return\n"
                          "}\n"
                          "// EXPECT: unchanged\n"
                          "// CASE: b\n"
                          "func.func @main() {\n"
                          "  return\n"
                          "}\n"
                          "// EXPECT:\n"
                          "func.func @main() {\n"
                          "  return\n"
                          "}\n");
  ASSERT_TRUE(ok.isOk()) << ok.status().toString();
  ASSERT_EQ(ok->size(), 2u);
  EXPECT_EQ((*ok)[0].pass, "dce");
  EXPECT_EQ((*ok)[0].expect, PassCase::Expect::Unchanged);
  EXPECT_EQ((*ok)[1].line, 7);
  // The input keeps the file's line numbers: its first line is line 8.
  EXPECT_EQ((*ok)[1].input, std::string(7, '\n') + "func.func @main() {\n  return\n}\n");
  EXPECT_EQ(parseCaseFile("x.ir", "// CASE: a\nfunc.func @main() {\n  return\n}\n")
                .status()
                .message(),
            "x.ir:1: case 'a' has no // EXPECT line");
  EXPECT_EQ(parseCaseFile("x.ir", "// CASE: a\n// EXPECT: unchanged\n// CASE: a\n")
                .status()
                .message(),
            "x.ir:3: case 'a' is named twice");
  EXPECT_EQ(parseCaseFile("x.ir", "// CASE: a\n// EXPECT: unchanged\n// EXPECT:\n")
                .status()
                .message(),
            "x.ir:3: a second EXPECT in case 'a'");
}

}  // namespace
}  // namespace jft::passes::testing
