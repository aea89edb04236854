// The native route in the pipeline, per XLA_MODE: which groups go native
// (back_unsupported: what TTIR refuses; native: every TTIR group; fl_only:
// none; nested bodies like the top level), and what the listing error says
// when neither route takes an op. Binaries: native_binaries_test.cc.
#include <gtest/gtest.h>

#include <iostream>
#include <sstream>

#include "compiler/compiler.h"
#include "compiler/native_route_programs.h"

namespace jft::compiler {
namespace {

using testing::compileText;
using testing::entryOf;
using testing::kComplexPairSum;
using testing::kComplexPairSumInLoop;
using testing::kComplexScatterSubtract;
using testing::kLongSortRows;
using testing::kSineAndExp;
using testing::kSortRows;

TEST(NativeRoute, BackUnsupportedRunsWhatTtirRefusesOnTheNativeRoute) {
  Options options;  // back_unsupported
  options.log = true;
  std::ostringstream captured;
  std::streambuf* saved = std::cerr.rdbuf(captured.rdbuf());
  StatusOr<Executable> built = compileText(kComplexPairSum, options);
  std::cerr.rdbuf(saved);
  ASSERT_TRUE(built.isOk()) << built.status().toString();
  const RouteEntry* reduce = entryOf(*built, "reduce");
  ASSERT_NE(reduce, nullptr) << built->report.text();
  EXPECT_EQ(reduce->route, "native");
  EXPECT_EQ(reduce->family, "reduction");
  EXPECT_EQ(reduce->name.find("_none"), std::string::npos) << reduce->name;
  // The TTIR refusal is the reason, in the log line of that kernel.
  EXPECT_NE(reduce->native_reason.find("TTIR cannot run it"), std::string::npos)
      << reduce->native_reason;
  const std::string log = captured.str();
  EXPECT_NE(log.find(reduce->name + " native/reduction"), std::string::npos) << log;
  EXPECT_NE(log.find("[native: TTIR cannot run it: combiner of several complex operands"),
            std::string::npos)
      << log;
  // The sine TTIR takes stays there.
  const RouteEntry* sine = entryOf(*built, "sine");
  ASSERT_NE(sine, nullptr) << built->report.text();
  EXPECT_EQ(sine->route, "ttir");
  EXPECT_TRUE(sine->native_reason.empty());
}

TEST(NativeRoute, FlOnlyRefusesWhatTtirRefuses) {
  Options options;
  options.mode = Mode::kFlOnly;
  StatusOr<Executable> built = compileText(kComplexPairSum, options);
  ASSERT_FALSE(built.isOk());
  EXPECT_EQ(built.status().code(), StatusCode::kUnimplemented);
  const std::string& m = built.status().message();
  EXPECT_NE(m.find("XLA_MODE=fl_only allows no native fallback"), std::string::npos) << m;
  EXPECT_NE(m.find("stablehlo.reduce"), std::string::npos) << m;
  EXPECT_EQ(m.find("native route cannot run"), std::string::npos) << m;
}

TEST(NativeRoute, BackFailAlsoRunsWhatTtirRefusesOnTheNativeRoute) {
  Options options;
  options.mode = Mode::kBackFail;
  StatusOr<Executable> built = compileText(kComplexPairSum, options);
  ASSERT_TRUE(built.isOk()) << built.status().toString();
  ASSERT_NE(entryOf(*built, "reduce"), nullptr);
  EXPECT_EQ(entryOf(*built, "reduce")->route, "native");
}

TEST(NativeRoute, NativeModePutsTtirGroupsOnTheNativeRoute) {
  Options options;
  options.mode = Mode::kNative;
  Stages stages;
  StatusOr<Executable> built = compileText(kSineAndExp, options, nullptr, &stages);
  ASSERT_TRUE(built.isOk()) << built.status().toString();
  size_t native = 0;
  for (const RouteEntry& e : built->report.entries) {
    EXPECT_NE(e.route, "ttir") << e.name;
    if (e.route != "native") continue;
    ++native;
    EXPECT_EQ(e.native_reason, "XLA_MODE=native");
    EXPECT_EQ(e.family, "loop");
  }
  EXPECT_EQ(native, 2u) << built->report.text();
  EXPECT_TRUE(stages.ttir.empty());
  ASSERT_EQ(stages.cuda.size(), 2u);
  ASSERT_EQ(stages.cuda_names.size(), 2u);
  EXPECT_NE(stages.cuda[0].find("extern \"C\" __global__"), std::string::npos);
  EXPECT_NE(stages.cuda[0].find(stages.cuda_names[0]), std::string::npos);
}

TEST(NativeRoute, NativeModeRunsSortsNatively) {
  Options options;
  options.mode = Mode::kNative;
  StatusOr<Executable> built = compileText(kSortRows, options);
  ASSERT_TRUE(built.isOk()) << built.status().toString();
  const RouteEntry* sort = entryOf(*built, "sort");
  ASSERT_NE(sort, nullptr) << built->report.text();
  EXPECT_EQ(sort->route, "native");
  EXPECT_EQ(sort->family, "sort");
  EXPECT_EQ(sort->native_reason, "XLA_MODE=native");
}

TEST(NativeRoute, BackUnsupportedRunsAScatterTtirRefusesAsANativeScatter) {
  StatusOr<Executable> built = compileText(kComplexScatterSubtract, Options{});
  ASSERT_TRUE(built.isOk()) << built.status().toString();
  const RouteEntry* scatter = entryOf(*built, "scatter");
  ASSERT_NE(scatter, nullptr) << built->report.text();
  EXPECT_EQ(scatter->route, "native");
  EXPECT_EQ(scatter->family, "scatter");
  EXPECT_NE(scatter->native_reason.find("TTIR cannot run it"), std::string::npos)
      << scatter->native_reason;
  // fl_only still refuses it.
  Options strict;
  strict.mode = Mode::kFlOnly;
  EXPECT_FALSE(compileText(kComplexScatterSubtract, strict).isOk());
}

TEST(NativeRoute, NativeModeListsTheGroupsTheEmitterCannotExpress) {
  Options options;
  options.mode = Mode::kNative;
  StatusOr<Executable> built = compileText(kLongSortRows, options);
  ASSERT_FALSE(built.isOk());
  EXPECT_EQ(built.status().code(), StatusCode::kUnimplemented);
  const std::string& m = built.status().message();
  EXPECT_NE(m.find("XLA_MODE=native: the native route cannot run them"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("stablehlo.sort"), std::string::npos) << m;
  EXPECT_NE(m.find("stablehlo.sort: rows of 20000 elements"), std::string::npos) << m;
  // The same program compiles on TTIR in the default mode.
  EXPECT_TRUE(compileText(kLongSortRows, Options{}).isOk());
}

TEST(NativeRoute, NestedRegionsAreRoutedLikeTheTopLevel) {
  Options options;  // back_unsupported
  StatusOr<Executable> built = compileText(kComplexPairSumInLoop, options);
  ASSERT_TRUE(built.isOk()) << built.status().toString();
  const RouteEntry* reduce = entryOf(*built, "reduce");
  ASSERT_NE(reduce, nullptr) << built->report.text();
  EXPECT_EQ(reduce->route, "native");
  EXPECT_EQ(reduce->name.rfind("while_", 0), 0u) << reduce->name;
  EXPECT_NE(reduce->native_reason.find("TTIR cannot run it"), std::string::npos);

  options.mode = Mode::kFlOnly;
  StatusOr<Executable> strict = compileText(kComplexPairSumInLoop, options);
  ASSERT_FALSE(strict.isOk());
  EXPECT_NE(strict.status().message().find("stablehlo.reduce"), std::string::npos)
      << strict.status().message();
}

}  // namespace
}  // namespace jft::compiler
