// Every zoo program, imported by the frontend, must pass the verifier (JAX
// produced it, so any error is a false positive of ours) and print with the
// same ops, counted by name, as the generic MLIR text JAX's own tools wrote
// next to it (artifact.generic.mlir, the text of the same
// artifact).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "frontend/vhlo/import.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "zoo_fixtures.h"

namespace jft::ir {
namespace {

using testing::fixtureNames;
using testing::importFixture;
using testing::readZooFile;
using testing::zooDir;

// stablehlo ops (returns aside) by name in the generic text: "stablehlo.add"(...).
std::map<std::string, int> genericOpCounts(const std::string& text) {
  std::map<std::string, int> counts;
  static const std::regex op("\"stablehlo\\.([a-z_]+)\"\\(");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), op);
       it != std::sregex_iterator(); ++it)
    if ((*it)[1] != "return") ++counts[(*it)[1]];
  return counts;
}

// The same from our text: the op name opens the line or follows "%n = ".
std::map<std::string, int> printedOpCounts(const std::string& text) {
  std::map<std::string, int> counts;
  static const std::regex op("^\\s*(?:%[0-9:]+ = )?stablehlo\\.([a-z_]+)");
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::smatch match;
    if (std::regex_search(line, match, op) && match[1] != "return") ++counts[match[1]];
  }
  return counts;
}

TEST(Zoo, EveryProgramVerifiesAndPrintsItsOps) {
  const std::vector<std::string> names = fixtureNames();
  ASSERT_GE(names.size(), 20u);
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    auto module = importFixture(name);
    ASSERT_TRUE(module.isOk()) << module.status().toString();
    Status verified = verifyModule(*module);
    EXPECT_TRUE(verified.isOk()) << verified.toString();
    const std::string text = printModule(*module);
    EXPECT_EQ(text, printModule(*module)) << "printing is not deterministic";
    EXPECT_EQ(printedOpCounts(text),
              genericOpCounts(readZooFile(zooDir() / name / "artifact.generic.mlir")));
  }
}

TEST(Zoo, SmokeLocationsNameTheUserLine) {
  auto module = importFixture("smoke");
  ASSERT_TRUE(module.isOk()) << module.status().toString();
  PrintOptions options;
  options.print_locations = true;
  // artifact.generic.mlir: the tanh is at #loc16 = "jit(smoke)/tanh"(#loc13),
  // whose callee frame is "zoo.py":17:11 to :35.
  const std::string text = printModule(*module, options);
  EXPECT_NE(text.find("stablehlo.tanh %5 : tensor<256xf32> loc(\"zoo.py\":17:11)\n"),
            std::string::npos)
      << text;
  options.full_locations = true;
  EXPECT_NE(
      printModule(*module, options)
          .find("loc(\"jit(smoke)/tanh\"(callsite(\"smoke\"(\"zoo.py\":17:11 to :35) at "
                "\"<module>\"(\"dump_fixtures.py\":31:14 to :38))))"),
      std::string::npos);
}

}  // namespace
}  // namespace jft::ir
