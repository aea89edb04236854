// Runs the built `jft` binary (path compiled in as JFT_TOOL_PATH) the way a
// user would, and checks exit status, stdout and stderr. The op table is
// checked against counts taken from each fixture's artifact.generic.mlir.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct RunResult {
  int exit_code = -1;
  std::string out, err;
};

std::string fixtureDir() {
  if (const char* env = std::getenv("JFT_FIXTURE_DIR"); env && *env) return env;
  return JFT_FIXTURE_DIR;
}

std::string shellQuoted(const std::string& s) {
  return "'" + s + "'";
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Runs `jft <args>`; stdout through the pipe, stderr through a scratch file.
RunResult runJft(const std::string& args) {
  fs::path err_file = fs::temp_directory_path() /
                      ("jft_cli_test_" + std::to_string(::getpid()) + ".stderr");
  std::string command =
      shellQuoted(JFT_TOOL_PATH) + " " + args + " 2>" + shellQuoted(err_file.string());
  RunResult result;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return result;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    result.out.append(buffer, n);
  int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.err = slurp(err_file);
  fs::remove(err_file);
  return result;
}

std::vector<std::string> fixtureNames() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(fixtureDir()))
    if (fs::exists(entry.path() / "program.mlirbc"))
      names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

// Rows of the op table: kind -> (count, first use).
std::map<std::string, std::pair<int, std::string>> tableRows(const std::string& out) {
  std::map<std::string, std::pair<int, std::string>> rows;
  size_t at = out.find("op census:");
  if (at == std::string::npos) return rows;
  std::istringstream in(out.substr(at));
  std::string line;
  std::getline(in, line);  // totals
  std::getline(in, line);  // column heads
  std::regex row(R"(^  (\S+)\s+(\d+)  (.*)$)");
  std::smatch m;
  while (std::getline(in, line))
    if (std::regex_match(line, m, row)) rows[m[1]] = {std::stoi(m[2]), m[3]};
  return rows;
}

// Op counts read straight from the generic text: "stablehlo.X" -> X,
// func.return and stablehlo.return -> return, func.call -> call.
std::map<std::string, int> textOpCounts(const std::string& path) {
  std::map<std::string, int> counts;
  std::string text = slurp(path);
  std::regex op(R"re("(stablehlo|func)\.([a-z_]+)"\()re");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), op);
       it != std::sregex_iterator(); ++it) {
    std::string name = (*it)[2];
    if ((*it)[1] == "func" && name == "func") continue;
    ++counts[name];
  }
  return counts;
}

class JftInspectFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(JftInspectFixture, PrintsIrAndAnOpTableMatchingTheText) {
  std::string dir = fixtureDir() + "/" + GetParam();
  RunResult r = runJft("inspect " + shellQuoted(dir + "/program.mlirbc"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_NE(r.out.find("main"), std::string::npos);  // the IR listing names the entry
  std::map<std::string, std::pair<int, std::string>> rows = tableRows(r.out);
  std::map<std::string, int> expected = textOpCounts(dir + "/artifact.generic.mlir");
  ASSERT_FALSE(expected.empty());
  for (const auto& [kind, count] : expected) {
    auto it = rows.find(kind);
    if (it == rows.end()) {
      ADD_FAILURE() << kind << " missing from the op table:\n" << r.out;
      continue;
    }
    EXPECT_EQ(it->second.first, count) << kind;
  }
  EXPECT_EQ(rows.size(), expected.size());
}

INSTANTIATE_TEST_SUITE_P(Zoo, JftInspectFixture, ::testing::ValuesIn(fixtureNames()),
                         [](const auto& info) { return info.param; });

TEST(JftInspect, MlpTableShowsDotGeneralWithItsSourceLine) {
  RunResult r =
      runJft("inspect --summary " + shellQuoted(fixtureDir() + "/mlp/program.mlirbc"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto rows = tableRows(r.out);
  ASSERT_TRUE(rows.count("dot_general")) << r.out;
  EXPECT_EQ(rows["dot_general"].first, 2);
  // artifact.generic.mlir: the first dot_general is at loc #loc24, a name
  // over a call site whose callee frame is zoo.py:31:23.
  EXPECT_NE(rows["dot_general"].second.find("zoo.py:31:23"), std::string::npos) << r.out;
  // --summary leaves the IR listing out.
  EXPECT_EQ(r.out.find("op census:"), 0u) << r.out;
}

TEST(JftInspect, ReadsStandardInput) {
  RunResult r = runJft("inspect --summary - < " +
                       shellQuoted(fixtureDir() + "/smoke/program.mlirbc"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto rows = tableRows(r.out);
  EXPECT_EQ(rows["tanh"].first, 1) << r.out;
  EXPECT_NE(rows["tanh"].second.find("zoo.py:17:11"), std::string::npos) << r.out;
}

TEST(JftInspect, MissingFileFailsWithMessage) {
  std::string path = fixtureDir() + "/no_such_fixture/program.mlirbc";
  RunResult r = runJft("inspect " + shellQuoted(path));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find(path), std::string::npos) << r.err;
}

class JftInspectBadBytes : public ::testing::Test {
 protected:
  fs::path writeScratch(const std::string& bytes) {
    path_ = fs::temp_directory_path() /
            ("jft_cli_test_" + std::to_string(::getpid()) + ".mlirbc");
    std::ofstream(path_, std::ios::binary) << bytes;
    return path_;
  }
  void TearDown() override { fs::remove(path_); }
  fs::path path_;
};

TEST_F(JftInspectBadBytes, TruncatedFileFailsNamingTheOffset) {
  std::string whole = slurp(fixtureDir() + "/mlp/program.mlirbc");
  ASSERT_GT(whole.size(), 100u);
  for (size_t keep : {whole.size() / 2, size_t{40}, size_t{6}}) {
    RunResult r =
        runJft("inspect " + shellQuoted(writeScratch(whole.substr(0, keep)).string()));
    EXPECT_EQ(r.exit_code, 1) << "keeping " << keep << " bytes";
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_NE(r.err.find("INVALID_ARGUMENT"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("offset"), std::string::npos) << r.err;
  }
}

// Any prefix of a valid artifact: a clean exit with a message, never a
// crash (a signal shows up as an exit code above 128).
TEST_F(JftInspectBadBytes, EveryPrefixExitsCleanly) {
  std::string whole = slurp(fixtureDir() + "/smoke/program.mlirbc");
  ASSERT_GT(whole.size(), 100u);
  for (size_t keep = 0; keep < whole.size(); keep += 23) {
    RunResult r = runJft("inspect --summary " +
                         shellQuoted(writeScratch(whole.substr(0, keep)).string()));
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1)
        << keep << " bytes: exit " << r.exit_code;
    if (r.exit_code == 1) {
      EXPECT_FALSE(r.err.empty()) << keep << " bytes";
    }
  }
}

TEST_F(JftInspectBadBytes, NotBytecodeFailsCleanly) {
  RunResult r = runJft("inspect " +
                       shellQuoted(writeScratch("this is not MLIR bytecode\n").string()));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_FALSE(r.err.empty());
  r = runJft("inspect " + shellQuoted(writeScratch("").string()));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_FALSE(r.err.empty());
}

TEST(JftCommandLine, HelpListsInspect) {
  RunResult r = runJft("--help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("inspect"), std::string::npos) << r.out;

  r = runJft("inspect --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("usage: jft inspect"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--summary"), std::string::npos) << r.out;
}

TEST(JftCommandLine, WrongUsageExitsTwoWithUsageOnStderr) {
  for (const char* args : {"", "frobnicate", "inspect", "inspect --bogus x.mlirbc"}) {
    RunResult r = runJft(args);
    EXPECT_EQ(r.exit_code, 2) << "jft " << args;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_NE(r.err.find("usage: jft"), std::string::npos)
        << "jft " << args << ": " << r.err;
  }
}

}  // namespace
