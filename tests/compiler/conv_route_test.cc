// XLA_FLAGTREE_CONV: read from the environment like XLA_FLAGTREE_MATMUL, and
// the route each setting gives a bf16 conv + relu through the whole pipeline
// in fl_only mode (TTIR kernels and GemmThunks of the assembled program, the
// route report).
#include <gtest/gtest.h>

#include <map>

#include "codegen/conv_modules.h"
#include "compiler/compiler.h"
#include "ir/builder.h"

namespace jft::compiler {
namespace {

using fusion::ConvRoute;
using ir::ElementType;
using ir::OpKind;
using ir::Type;
using ir::ValueId;
using jft::testing::conv::addConv;
using jft::testing::conv::convResultType;
using jft::testing::conv::ConvSpec;

Options::EnvLookup envOf(std::map<std::string, std::string> vars) {
  return [vars](const char* name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(ConvSetting, ParsesTheThreeValues) {
  EXPECT_EQ(*parseConvRoute("auto"), ConvRoute::kAuto);
  EXPECT_EQ(*parseConvRoute(""), ConvRoute::kAuto);
  EXPECT_EQ(*parseConvRoute("library"), ConvRoute::kLibrary);
  EXPECT_EQ(*parseConvRoute(" TTIR "), ConvRoute::kTtir);
  StatusOr<ConvRoute> bad = parseConvRoute("cudnn");
  ASSERT_FALSE(bad.isOk());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("XLA_FLAGTREE_CONV='cudnn' is not a convolution "
                                        "route; accepted: auto, library, ttir"),
            std::string::npos)
      << bad.status().message();
}

TEST(ConvSetting, ReadFromTheEnvironment) {
  EXPECT_EQ(Options::fromEnvironment(envOf({}))->conv, ConvRoute::kAuto);
  EXPECT_EQ(Options::fromEnvironment(envOf({{"XLA_FLAGTREE_CONV", "ttir"}}))->conv,
            ConvRoute::kTtir);
  EXPECT_EQ(Options::fromEnvironment(envOf({{"XLA_FLAGTREE_CONV", "library"}}))->conv,
            ConvRoute::kLibrary);
  StatusOr<Options> bad = Options::fromEnvironment(envOf({{"XLA_FLAGTREE_CONV", "x"}}));
  ASSERT_FALSE(bad.isOk());
  EXPECT_NE(bad.status().message().find("XLA_FLAGTREE_CONV"), std::string::npos);
}

// relu(conv(x, w)), NHWC x HWIO with SAME padding, of element type `e`.
ir::Module convRelu(ElementType e) {
  ConvSpec s;
  s.lhs = {2, 8, 8, 16};
  s.rhs = {3, 3, 16, 32};
  s.padding = {1, 1, 1, 1};
  s.element = s.result = e;
  ir::Module module;
  ir::Builder b(module);
  const Type t = convResultType(s);
  auto a = b.beginFunction("main", {Type::tensor(e, s.lhs), Type::tensor(e, s.rhs)}, {t});
  const ValueId c = addConv(b, a[0], a[1], s);
  const ValueId zero = b.constant(ir::DenseElements::makeSplat(
      t, std::vector<uint8_t>(static_cast<size_t>(ir::storageBytes(e)), 0)));
  b.ret({b.op1(OpKind::Maximum, {c, zero}, t)});
  b.endFunction();
  return module;
}

struct Compiled {
  Executable executable;
  Stages stages;
  size_t gemms = 0;
};

Compiled compileWith(ConvRoute route, ElementType e = ElementType::BF16) {
  Options options;
  options.mode = Mode::kFlOnly;
  options.conv = route;
  Compiled c;
  StatusOr<Executable> result = compileModule(convRelu(e), options, nullptr, &c.stages);
  EXPECT_TRUE(result.isOk()) << result.status().toString();
  if (!result.isOk()) return c;
  c.executable = std::move(*result);
  for (const runtime::Thunk& t : c.executable.program.thunks)
    c.gemms += std::holds_alternative<runtime::GemmThunk>(t);
  return c;
}

TEST(ConvSetting, TtirRunsConvolutionAndReluAsOneKernel) {
  Compiled c = compileWith(ConvRoute::kTtir);
  EXPECT_EQ(c.gemms, 0u);
  ASSERT_EQ(c.stages.ttir.size(), 1u);
  EXPECT_NE(c.stages.ttir[0].find("tt.dot"), std::string::npos);
  ASSERT_EQ(c.executable.report.entries.size(), 1u);
  EXPECT_EQ(c.executable.report.entries[0].route, "ttir");
  EXPECT_EQ(c.executable.report.entries[0].family, "conv");
}

TEST(ConvSetting, LibraryRunsThePatchesKernelAndOneGemm) {
  Compiled c = compileWith(ConvRoute::kLibrary);
  EXPECT_EQ(c.gemms, 1u);
  for (const std::string& t : c.stages.ttir)
    EXPECT_EQ(t.find("tt.dot"), std::string::npos);
}

TEST(ConvSetting, AutoTakesBf16OnTtirAndKeepsF32OnTheLibrary) {
  EXPECT_EQ(compileWith(ConvRoute::kAuto).gemms, 0u);
  EXPECT_EQ(compileWith(ConvRoute::kAuto, ElementType::F32).gemms, 1u);
  // A different setting is a different executable.
  EXPECT_NE(compileWith(ConvRoute::kAuto).executable.fingerprint,
            compileWith(ConvRoute::kLibrary).executable.fingerprint);
}

}  // namespace
}  // namespace jft::compiler
