// Modes, XLA_FLAGTREE_LOG and XLA_FLAGS, read the way the plugin reads them.
#include <gtest/gtest.h>

#include <map>

#include "compiler/compiler.h"
#include "compiler/env_lookup.h"
#include "compiler/xla_flags.h"

namespace jft::compiler {
namespace {

using testing::envOf;

TEST(Mode, ParsesEveryDocumentedValue) {
  EXPECT_EQ(*parseMode(""), Mode::kBackUnsupported);
  EXPECT_EQ(*parseMode("back_unsupported"), Mode::kBackUnsupported);
  EXPECT_EQ(*parseMode("fl_only"), Mode::kFlOnly);
  EXPECT_EQ(*parseMode("back_fail"), Mode::kBackFail);
  EXPECT_EQ(*parseMode("native"), Mode::kNative);
  EXPECT_EQ(*parseMode(" FL_ONLY\n"), Mode::kFlOnly);
}

TEST(Mode, NamesRoundTrip) {
  for (Mode mode :
       {Mode::kBackUnsupported, Mode::kFlOnly, Mode::kBackFail, Mode::kNative})
    EXPECT_EQ(*parseMode(modeName(mode)), mode) << modeName(mode);
  EXPECT_STREQ(modeName(Mode::kFlOnly), "fl_only");
}

TEST(Mode, AnythingElseListsTheAcceptedValues) {
  for (const char* bad : {"strict", "fl-only", "nativ", "0"}) {
    StatusOr<Mode> mode = parseMode(bad);
    ASSERT_FALSE(mode.isOk()) << bad;
    EXPECT_EQ(mode.status().code(), StatusCode::kInvalidArgument);
    const std::string& m = mode.status().message();
    EXPECT_NE(m.find(bad), std::string::npos) << m;
    for (const char* name : {"back_unsupported", "fl_only", "back_fail", "native"})
      EXPECT_NE(m.find(name), std::string::npos) << m;
  }
}

TEST(XlaFlags, ReadsTheHonouredFlagsAndKeepsUnknownOnes) {
  StatusOr<XlaFlags> flags = parseXlaFlags(
      "  --xla_gpu_autotune_level=2 --xla_foo=1\t--xla_dump_to=/tmp/d "
      "--xla_gpu_exclude_nondeterministic_ops --xla_bar\n");
  ASSERT_TRUE(flags.isOk()) << flags.status().toString();
  EXPECT_EQ(flags->dump_to, "/tmp/d");
  EXPECT_EQ(flags->autotune_level, 2);
  EXPECT_TRUE(flags->exclude_nondeterministic_ops);
  EXPECT_EQ(flags->unknown, (std::vector<std::string>{"--xla_foo=1", "--xla_bar"}));
}

TEST(XlaFlags, DefaultsAndLastOccurrenceWins) {
  StatusOr<XlaFlags> empty = parseXlaFlags("");
  ASSERT_TRUE(empty.isOk());
  EXPECT_EQ(empty->dump_to, "");
  EXPECT_EQ(empty->autotune_level, 0);
  EXPECT_FALSE(empty->exclude_nondeterministic_ops);
  StatusOr<XlaFlags> twice = parseXlaFlags(
      "--xla_dump_to=a --xla_dump_to=b --xla_gpu_exclude_nondeterministic_ops=true "
      "--xla_gpu_exclude_nondeterministic_ops=false --xla_gpu_autotune_level=4 "
      "--xla_gpu_autotune_level=0");
  ASSERT_TRUE(twice.isOk());
  EXPECT_EQ(twice->dump_to, "b");
  EXPECT_FALSE(twice->exclude_nondeterministic_ops);
  EXPECT_EQ(twice->autotune_level, 0);
}

TEST(XlaFlags, MalformedValuesOfKnownFlagsAreErrors) {
  for (const char* bad : {"--xla_gpu_autotune_level=x", "--xla_gpu_autotune_level=5",
                          "--xla_gpu_autotune_level=-1", "--xla_gpu_autotune_level=",
                          "--xla_gpu_autotune_level", "--xla_gpu_autotune_level=2x",
                          "--xla_gpu_exclude_nondeterministic_ops=maybe", "--xla_dump_to",
                          "--xla_dump_to="}) {
    StatusOr<XlaFlags> flags = parseXlaFlags(bad);
    ASSERT_FALSE(flags.isOk()) << bad;
    EXPECT_EQ(flags.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(flags.status().message().find(bad), std::string::npos)
        << flags.status().message();
  }
}

TEST(OptionsFromEnvironment, UnsetMeansDefaults) {
  StatusOr<Options> options = Options::fromEnvironment(envOf({}));
  ASSERT_TRUE(options.isOk());
  EXPECT_EQ(options->mode, Mode::kBackUnsupported);
  EXPECT_FALSE(options->log);
  EXPECT_EQ(options->dump_dir, "");
  EXPECT_EQ(options->autotune_level, 0);
  EXPECT_FALSE(options->exclude_nondeterministic_ops);
  EXPECT_TRUE(options->unknown_flags.empty());
  EXPECT_TRUE(options->fail_kernels.empty());
}

TEST(OptionsFromEnvironment, ReadsAllThreeVariables) {
  StatusOr<Options> options = Options::fromEnvironment(
      envOf({{"XLA_MODE", "fl_only"},
             {"XLA_FLAGTREE_LOG", "1"},
             {"XLA_FLAGS", "--xla_dump_to=dumps --xla_gpu_autotune_level=1 --xla_x"}}));
  ASSERT_TRUE(options.isOk()) << options.status().toString();
  EXPECT_EQ(options->mode, Mode::kFlOnly);
  EXPECT_TRUE(options->log);
  EXPECT_EQ(options->dump_dir, "dumps");
  EXPECT_EQ(options->autotune_level, 1);
  EXPECT_EQ(options->unknown_flags, std::vector<std::string>{"--xla_x"});
}

TEST(OptionsFromEnvironment, FailKernelsIsACommaSeparatedListOfNamePieces) {
  StatusOr<Options> options = Options::fromEnvironment(
      envOf({{"XLA_FLAGTREE_FAIL_KERNELS", " loop_sine, ,reduce ,"}}));
  ASSERT_TRUE(options.isOk()) << options.status().toString();
  EXPECT_EQ(options->fail_kernels, (std::vector<std::string>{"loop_sine", "reduce"}));
  EXPECT_TRUE(Options::fromEnvironment(envOf({{"XLA_FLAGTREE_FAIL_KERNELS", ""}}))
                  ->fail_kernels.empty());
}

TEST(OptionsFromEnvironment, LogSwitchSpellings) {
  for (const char* on : {"1", "true", "YES", "on", "2"})
    EXPECT_TRUE(Options::fromEnvironment(envOf({{"XLA_FLAGTREE_LOG", on}}))->log) << on;
  for (const char* off : {"", "0", "false", "no", "OFF"})
    EXPECT_FALSE(Options::fromEnvironment(envOf({{"XLA_FLAGTREE_LOG", off}}))->log)
        << off;
  EXPECT_FALSE(Options::fromEnvironment(envOf({{"XLA_FLAGTREE_LOG", "loud"}})).isOk());
}

TEST(OptionsFromEnvironment, HorizontalFusionIsOnUnlessTurnedOff) {
  EXPECT_TRUE(Options::fromEnvironment(envOf({}))->horizontal);
  EXPECT_FALSE(
      Options::fromEnvironment(envOf({{"XLA_FLAGTREE_HORIZONTAL", "0"}}))->horizontal);
  StatusOr<Options> bad =
      Options::fromEnvironment(envOf({{"XLA_FLAGTREE_HORIZONTAL", "x"}}));
  ASSERT_FALSE(bad.isOk());
  EXPECT_NE(bad.status().message().find("XLA_FLAGTREE_HORIZONTAL='x'"),
            std::string::npos);
}

TEST(OptionsFromEnvironment, AttentionFamilyIsOnUnlessTurnedOff) {
  EXPECT_TRUE(Options::fromEnvironment(envOf({}))->attention);
  EXPECT_FALSE(
      Options::fromEnvironment(envOf({{"XLA_FLAGTREE_ATTENTION", "0"}}))->attention);
  StatusOr<Options> bad =
      Options::fromEnvironment(envOf({{"XLA_FLAGTREE_ATTENTION", "maybe"}}));
  ASSERT_FALSE(bad.isOk());
  EXPECT_NE(bad.status().message().find("XLA_FLAGTREE_ATTENTION='maybe'"),
            std::string::npos);
}

TEST(OptionsFromEnvironment, SortRegisterStepsAreOffUnlessTurnedOn) {
  EXPECT_FALSE(Options::fromEnvironment(envOf({}))->sort_registers);
  EXPECT_TRUE(Options::fromEnvironment(envOf({{"XLA_FLAGTREE_SORT_REGISTERS", "1"}}))
                  ->sort_registers);
  EXPECT_FALSE(
      Options::fromEnvironment(envOf({{"XLA_FLAGTREE_SORT_REGISTERS", "fast"}})).isOk());
}

TEST(OptionsFromEnvironment, RecomputingElementwiseValuesIsOffUnlessTurnedOn) {
  EXPECT_FALSE(Options::fromEnvironment(envOf({}))->recompute);
  EXPECT_TRUE(
      Options::fromEnvironment(envOf({{"XLA_FLAGTREE_RECOMPUTE", "1"}}))->recompute);
  EXPECT_FALSE(
      Options::fromEnvironment(envOf({{"XLA_FLAGTREE_RECOMPUTE", "lots"}})).isOk());
}

TEST(OptionsFromEnvironment, BadValuesFailNamingTheVariable) {
  StatusOr<Options> mode = Options::fromEnvironment(envOf({{"XLA_MODE", "fast"}}));
  ASSERT_FALSE(mode.isOk());
  EXPECT_NE(mode.status().message().find("XLA_MODE"), std::string::npos);
  StatusOr<Options> flags =
      Options::fromEnvironment(envOf({{"XLA_FLAGS", "--xla_gpu_autotune_level=high"}}));
  ASSERT_FALSE(flags.isOk());
  EXPECT_NE(flags.status().message().find("XLA_FLAGS"), std::string::npos);
}

}  // namespace
}  // namespace jft::compiler
