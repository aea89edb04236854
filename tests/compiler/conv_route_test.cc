// XLA_FLAGTREE_CONV: read from the environment like XLA_FLAGTREE_MATMUL, and
// the route each setting gives a bf16 conv + relu through the whole pipeline
// in fl_only mode (TTIR kernels and GemmThunks of the assembled program, the
// route report).
#include <gtest/gtest.h>

#include <map>

#include "codegen/conv_modules.h"
#include "codegen/library/conv_library.h"
#include "compiler/compiler.h"
#include "compiler/env_lookup.h"
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
using testing::envOf;

TEST(ConvSetting, ParsesTheFourValues) {
  EXPECT_EQ(*parseConvRoute("auto"), ConvRoute::kAuto);
  EXPECT_EQ(*parseConvRoute(""), ConvRoute::kAuto);
  EXPECT_EQ(*parseConvRoute("library"), ConvRoute::kLibrary);
  EXPECT_EQ(*parseConvRoute(" TTIR "), ConvRoute::kTtir);
  EXPECT_EQ(*parseConvRoute("cudnn"), ConvRoute::kCudnn);
  StatusOr<ConvRoute> bad = parseConvRoute("miopen");
  ASSERT_FALSE(bad.isOk());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("XLA_FLAGTREE_CONV='miopen' is not a convolution "
                                        "route; accepted: auto, library, cudnn, ttir"),
            std::string::npos)
      << bad.status().message();
}

TEST(ConvSetting, ReadFromTheEnvironment) {
  EXPECT_EQ(Options::fromEnvironment(envOf({}))->conv, ConvRoute::kAuto);
  EXPECT_EQ(Options::fromEnvironment(envOf({{"XLA_FLAGTREE_CONV", "ttir"}}))->conv,
            ConvRoute::kTtir);
  EXPECT_EQ(Options::fromEnvironment(envOf({{"XLA_FLAGTREE_CONV", "library"}}))->conv,
            ConvRoute::kLibrary);
  EXPECT_EQ(Options::fromEnvironment(envOf({{"XLA_FLAGTREE_CONV", "cudnn"}}))->conv,
            ConvRoute::kCudnn);
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

struct CompiledConv {
  Executable executable;
  Stages stages;
  size_t gemms = 0;
  std::vector<runtime::ConvDesc> convs;  // the LibraryThunks' descriptions
  std::vector<std::vector<int>> conv_buffers;
};

// A device's convolution library as the compiler sees it: answers `answer`
// and remembers what it was asked.
class FakeConvLibrary final : public ConvLibrary {
 public:
  explicit FakeConvLibrary(Status answer) : answer_(std::move(answer)) {}
  Status check(const runtime::ConvDesc& desc) override {
    asked.push_back(desc);
    return answer_;
  }
  std::vector<runtime::ConvDesc> asked;

 private:
  Status answer_;
};

CompiledConv compileConvRoute(ConvRoute route, ElementType e = ElementType::BF16,
                              ConvLibrary* library = nullptr) {
  Options options;
  options.mode = Mode::kFlOnly;
  options.conv = route;
  options.conv_library = library;
  CompiledConv c;
  StatusOr<Executable> result = compileModule(convRelu(e), options, nullptr, &c.stages);
  EXPECT_TRUE(result.isOk()) << result.status().toString();
  if (!result.isOk()) return c;
  c.executable = std::move(*result);
  for (const runtime::Thunk& t : c.executable.program.thunks) {
    c.gemms += std::holds_alternative<runtime::GemmThunk>(t);
    if (const auto* l = std::get_if<runtime::LibraryThunk>(&t))
      if (const auto* conv = std::get_if<runtime::ConvDesc>(&l->op)) {
        c.convs.push_back(*conv);
        c.conv_buffers.push_back(l->buffers);
      }
  }
  return c;
}

TEST(ConvSetting, TtirRunsConvolutionAndReluAsOneKernel) {
  CompiledConv c = compileConvRoute(ConvRoute::kTtir);
  EXPECT_EQ(c.gemms, 0u);
  ASSERT_EQ(c.stages.ttir.size(), 1u);
  EXPECT_NE(c.stages.ttir[0].find("tt.dot"), std::string::npos);
  ASSERT_EQ(c.executable.report.entries.size(), 1u);
  EXPECT_EQ(c.executable.report.entries[0].route, "ttir");
  EXPECT_EQ(c.executable.report.entries[0].family, "conv");
}

TEST(ConvSetting, LibraryRunsThePatchesKernelAndOneGemm) {
  CompiledConv c = compileConvRoute(ConvRoute::kLibrary);
  EXPECT_EQ(c.gemms, 1u);
  for (const std::string& t : c.stages.ttir)
    EXPECT_EQ(t.find("tt.dot"), std::string::npos);
}

TEST(ConvSetting, AutoTakesBf16OnTtirAndKeepsF32OnTheLibrary) {
  EXPECT_EQ(compileConvRoute(ConvRoute::kAuto).gemms, 0u);
  EXPECT_EQ(compileConvRoute(ConvRoute::kAuto, ElementType::F32).gemms, 1u);
  // A different setting is a different executable.
  EXPECT_NE(compileConvRoute(ConvRoute::kAuto).executable.fingerprint,
            compileConvRoute(ConvRoute::kLibrary).executable.fingerprint);
}

TEST(ConvLibraryRoute, LibraryIsCudnnWhenTheDeviceTakesTheConvolution) {
  FakeConvLibrary cudnn(Status::ok());
  CompiledConv c = compileConvRoute(ConvRoute::kLibrary, ElementType::BF16, &cudnn);
  EXPECT_EQ(c.gemms, 0u);
  ASSERT_EQ(c.convs.size(), 1u);
  ASSERT_EQ(cudnn.asked.size(), 1u);
  EXPECT_EQ(c.convs[0], cudnn.asked[0]);  // what the device readied is what runs
  EXPECT_EQ(c.convs[0].kind, runtime::ConvKind::kForward);
  EXPECT_EQ(c.convs[0].element, runtime::ConvElement::kBF16);
  EXPECT_EQ(c.conv_buffers[0].size(), 3u);  // lhs, the KRSC filter, result
  // The HWIO filter is permuted first: one TTIR transpose kernel, and the
  // relu its own kernel after the library call.
  bool transpose = false;
  for (const std::string& name : c.stages.kernel_names)
    transpose = transpose || name.find("rhs_filter") != std::string::npos;
  EXPECT_TRUE(transpose);
  const std::string report = c.executable.report.text();
  EXPECT_NE(report.find("cudnn conv fwd x[2,16,8,8] w[32,16,3,3] y[2,32,8,8] bf16"),
            std::string::npos)
      << report;
}

TEST(ConvLibraryRoute, TheInputGradientRunsAsBackwardDataOnTheReversedFilter) {
  // JAX's input gradient of a stride-2 conv (cudnn_conv_test.cc): its filter
  // kernel reverses and permutes the rhs, and the TTIR emitter takes it.
  ConvSpec s;
  s.lhs = {2, 4, 4, 4};
  s.rhs = {3, 3, 3, 4};
  s.rhs_layout = "01oi";
  s.lhs_dilation = {2, 2};
  s.padding = {1, 1, 1, 1};
  ir::Module module;
  ir::Builder b(module);
  auto a = b.beginFunction(
      "main", {Type::tensor(s.element, s.lhs), Type::tensor(s.element, s.rhs)},
      {convResultType(s)});
  b.ret({addConv(b, a[0], a[1], s)});
  b.endFunction();
  FakeConvLibrary cudnn(Status::ok());
  Options options;
  options.mode = Mode::kFlOnly;
  options.conv = ConvRoute::kLibrary;
  options.conv_library = &cudnn;
  Stages stages;
  StatusOr<Executable> compiled =
      compileModule(std::move(module), options, nullptr, &stages);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  ASSERT_EQ(cudnn.asked.size(), 1u);
  EXPECT_EQ(cudnn.asked[0].kind, runtime::ConvKind::kBackwardData);
  ASSERT_EQ(stages.kernel_names.size(), 1u);
  EXPECT_NE(stages.kernel_names[0].find("rhs_filter"), std::string::npos);
  EXPECT_NE(stages.ttir[0].find("tt.store"), std::string::npos);
}

TEST(ConvLibraryRoute, TheWeightGradientWritesKrscThenTransposesToHwio) {
  // JAX's weight gradient (cudnn_conv_test.cc): cuDNN writes dw as a KRSC
  // temp, a TTIR kernel after it moves that into the HWIO result.
  ConvSpec s;
  s.lhs = {2, 7, 7, 3};
  s.rhs = {2, 4, 4, 4};
  s.lhs_layout = "f01b";
  s.rhs_layout = "i01o";
  s.out_layout = "01bf";
  s.rhs_dilation = {2, 2};
  s.padding = {1, 1, 1, 1};
  ir::Module module;
  ir::Builder b(module);
  auto a = b.beginFunction(
      "main", {Type::tensor(s.element, s.lhs), Type::tensor(s.element, s.rhs)},
      {convResultType(s)});
  b.ret({addConv(b, a[0], a[1], s)});
  b.endFunction();
  FakeConvLibrary cudnn(Status::ok());
  Options options;
  options.mode = Mode::kFlOnly;
  options.conv = ConvRoute::kLibrary;
  options.conv_library = &cudnn;
  Stages stages;
  StatusOr<Executable> compiled =
      compileModule(std::move(module), options, nullptr, &stages);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  ASSERT_EQ(cudnn.asked.size(), 1u);
  EXPECT_EQ(cudnn.asked[0].kind, runtime::ConvKind::kBackwardFilter);
  ASSERT_EQ(stages.kernel_names.size(), 1u);
  EXPECT_NE(stages.kernel_names[0].find("result_transpose"), std::string::npos);
  // The library call comes first, the transpose kernel after it.
  const auto& thunks = compiled->program.thunks;
  ASSERT_EQ(thunks.size(), 2u);
  EXPECT_TRUE(std::holds_alternative<runtime::LibraryThunk>(thunks[0]));
  EXPECT_TRUE(std::holds_alternative<runtime::LaunchThunk>(thunks[1]));
}

TEST(ConvLibraryRoute, ARefusalFallsBackToPatchesAndGemm) {
  FakeConvLibrary refusing(unimplemented("cuDNN has no engine for it"));
  CompiledConv c = compileConvRoute(ConvRoute::kLibrary, ElementType::BF16, &refusing);
  EXPECT_EQ(refusing.asked.size(), 1u);
  EXPECT_EQ(c.gemms, 1u);
  EXPECT_TRUE(c.convs.empty());
  FakeConvLibrary missing(unavailable("cannot load cuDNN"));
  c = compileConvRoute(ConvRoute::kLibrary, ElementType::BF16, &missing);
  EXPECT_EQ(c.gemms, 1u);
  // No library at all: patches + GEMM, nothing asked.
  EXPECT_EQ(compileConvRoute(ConvRoute::kLibrary).gemms, 1u);
}

TEST(ConvLibraryRoute, CudnnForcedFailsClearlyWithoutTheLibrary) {
  Options options;
  options.mode = Mode::kFlOnly;
  options.conv = ConvRoute::kCudnn;
  StatusOr<Executable> none =
      compileModule(convRelu(ElementType::BF16), options, nullptr);
  ASSERT_FALSE(none.isOk());
  EXPECT_EQ(none.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(none.status().message().find("XLA_FLAGTREE_CONV=cudnn"), std::string::npos)
      << none.status().message();
  FakeConvLibrary missing(unavailable("cannot load cuDNN (set JFT_CUDNN_LIBRARY)"));
  options.conv_library = &missing;
  StatusOr<Executable> unloadable =
      compileModule(convRelu(ElementType::BF16), options, nullptr);
  ASSERT_FALSE(unloadable.isOk());
  EXPECT_NE(unloadable.status().message().find("JFT_CUDNN_LIBRARY"), std::string::npos)
      << unloadable.status().message();
  // A loaded library that refuses one description: that convolution falls back.
  FakeConvLibrary refusing(unimplemented("no engine"));
  EXPECT_EQ(compileConvRoute(ConvRoute::kCudnn, ElementType::BF16, &refusing).gemms, 1u);
  FakeConvLibrary cudnn(Status::ok());
  CompiledConv c = compileConvRoute(ConvRoute::kCudnn, ElementType::F32, &cudnn);
  EXPECT_EQ(c.gemms, 0u);
  ASSERT_EQ(c.convs.size(), 1u);
  EXPECT_TRUE(c.convs[0].allow_tf32);
}

// auto asks cuDNN first: a convolution it takes is one cuDNN call (even the
// bf16 one the cost model would give TTIR); one it refuses keeps the cost
// model's TTIR choice, never patches + cuBLASLt.
TEST(ConvLibraryRoute, AutoGivesCudnnWhatItTakesAndTheCostModelTheRest) {
  FakeConvLibrary cudnn(Status::ok());
  CompiledConv bf16 = compileConvRoute(ConvRoute::kAuto, ElementType::BF16, &cudnn);
  EXPECT_EQ(bf16.gemms, 0u);
  EXPECT_EQ(bf16.convs.size(), 1u);
  EXPECT_FALSE(cudnn.asked.empty());
  CompiledConv f32 = compileConvRoute(ConvRoute::kAuto, ElementType::F32, &cudnn);
  EXPECT_EQ(f32.gemms, 0u);
  EXPECT_EQ(f32.convs.size(), 1u);

  FakeConvLibrary refuses(unimplemented("no engine"));
  CompiledConv ttir = compileConvRoute(ConvRoute::kAuto, ElementType::BF16, &refuses);
  EXPECT_TRUE(ttir.convs.empty());  // the TTIR implicit GEMM
  EXPECT_EQ(ttir.gemms, 0u);
  EXPECT_FALSE(refuses.asked.empty());

  // ttir: TTIR wherever it can, cuDNN not asked.
  FakeConvLibrary unasked(Status::ok());
  EXPECT_TRUE(
      compileConvRoute(ConvRoute::kTtir, ElementType::BF16, &unasked).convs.empty());
  EXPECT_TRUE(unasked.asked.empty());
}

}  // namespace
}  // namespace jft::compiler
