// XLA_FLAGTREE_MATMUL: read from the environment like XLA_MODE, and the route
// each setting gives a dot + bias + relu through the whole pipeline (TTIR
// kernels and GemmThunks of the assembled program, the route report).
#include <gtest/gtest.h>

#include <map>

#include "compiler/compiler.h"
#include "compiler/env_lookup.h"
#include "ir/builder.h"

namespace jft::compiler {
namespace {

using fusion::MatmulRoute;
using ir::ElementType;
using ir::OpKind;
using ir::Type;
using ir::ValueId;
using testing::envOf;

TEST(MatmulSetting, ParsesTheThreeValues) {
  EXPECT_EQ(*parseMatmulRoute("auto"), MatmulRoute::kAuto);
  EXPECT_EQ(*parseMatmulRoute(""), MatmulRoute::kAuto);
  EXPECT_EQ(*parseMatmulRoute("library"), MatmulRoute::kLibrary);
  EXPECT_EQ(*parseMatmulRoute(" TTIR "), MatmulRoute::kTtir);
  StatusOr<MatmulRoute> bad = parseMatmulRoute("cublas");
  ASSERT_FALSE(bad.isOk());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find(
                "XLA_FLAGTREE_MATMUL='cublas' is not a matmul route; accepted: auto, "
                "library, ttir"),
            std::string::npos)
      << bad.status().message();
}

TEST(MatmulSetting, ReadFromTheEnvironment) {
  EXPECT_EQ(Options::fromEnvironment(envOf({}))->matmul, MatmulRoute::kAuto);
  EXPECT_EQ(Options::fromEnvironment(envOf({{"XLA_FLAGTREE_MATMUL", "ttir"}}))->matmul,
            MatmulRoute::kTtir);
  EXPECT_EQ(Options::fromEnvironment(envOf({{"XLA_FLAGTREE_MATMUL", "library"}}))->matmul,
            MatmulRoute::kLibrary);
  StatusOr<Options> bad = Options::fromEnvironment(envOf({{"XLA_FLAGTREE_MATMUL", "x"}}));
  ASSERT_FALSE(bad.isOk());
  EXPECT_NE(bad.status().message().find("XLA_FLAGTREE_MATMUL"), std::string::npos);
}

// relu(x @ w + bias), x [m, k], w [k, n].
ir::Module denseRelu(int64_t m, int64_t k, int64_t n) {
  ir::Module module;
  ir::Builder b(module);
  const Type t = Type::tensor(ElementType::F32, {m, n});
  auto a = b.beginFunction(
      "main",
      {Type::tensor(ElementType::F32, {m, k}), Type::tensor(ElementType::F32, {k, n}),
       Type::tensor(ElementType::F32, {n})},
      {t});
  ir::DotDimensionNumbers dn;
  dn.lhs_contracting_dims = {1};
  dn.rhs_contracting_dims = {0};
  ValueId d = b.op1(OpKind::DotGeneral, {a[0], a[1]}, t, {{"dot_dimension_numbers", dn}});
  ValueId bias = b.op1(OpKind::BroadcastInDim, {a[2]}, t,
                       {{"broadcast_dimensions", std::vector<int64_t>{1}}});
  ValueId sum = b.op1(OpKind::Add, {d, bias}, t);
  ValueId zero = b.constant(ir::DenseElements::makeSplat(t, {0, 0, 0, 0}));
  b.ret({b.op1(OpKind::Maximum, {sum, zero}, t)});
  b.endFunction();
  return module;
}

struct CompiledMatmul {
  Executable executable;
  Stages stages;
  size_t gemms = 0;
};

CompiledMatmul compileMatmulRoute(MatmulRoute route, int64_t m, int64_t k, int64_t n) {
  Options options;
  options.mode = Mode::kFlOnly;
  options.matmul = route;
  CompiledMatmul c;
  StatusOr<Executable> e = compileModule(denseRelu(m, k, n), options, nullptr, &c.stages);
  EXPECT_TRUE(e.isOk()) << e.status().toString();
  if (!e.isOk()) return c;
  c.executable = std::move(*e);
  for (const runtime::Thunk& t : c.executable.program.thunks)
    c.gemms += std::holds_alternative<runtime::GemmThunk>(t);
  return c;
}

TEST(MatmulSetting, TtirRunsDotAndEpilogueAsOneKernel) {
  CompiledMatmul c = compileMatmulRoute(MatmulRoute::kTtir, 300, 200, 100);
  EXPECT_EQ(c.gemms, 0u);
  ASSERT_EQ(c.stages.ttir.size(), 1u);
  EXPECT_NE(c.stages.ttir[0].find("tt.dot"), std::string::npos);
  ASSERT_EQ(c.executable.report.entries.size(), 1u);
  EXPECT_EQ(c.executable.report.entries[0].route, "ttir");
  EXPECT_EQ(c.executable.report.entries[0].family, "matmul");
}

// relu(x @ w + bias) in f32 on the library: one product whose cuBLASLt
// epilogue adds the bias and applies the relu (fusion/library_epilogue.h),
// no kernel, and the route report's row saying so.
TEST(MatmulSetting, LibraryRunsTheDotAndItsEpilogueOnCublasLt) {
  CompiledMatmul c = compileMatmulRoute(MatmulRoute::kLibrary, 300, 200, 100);
  EXPECT_EQ(c.gemms, 1u);
  EXPECT_TRUE(c.stages.ttir.empty());
  const runtime::Program& p = c.executable.program;
  const runtime::GemmThunk* gemm = nullptr;
  for (const runtime::Thunk& t : p.thunks)
    if (const auto* g = std::get_if<runtime::GemmThunk>(&t)) gemm = g;
  ASSERT_NE(gemm, nullptr);
  runtime::GemmDesc want;
  want.a = {runtime::GemmType::kF32, false, 200, 300 * 200};
  want.b = {runtime::GemmType::kF32, false, 100, 200 * 100};
  want.d_type = runtime::GemmType::kF32;
  want.d_ld = 100;
  want.d_batch_stride = 300 * 100;
  want.compute = runtime::GemmCompute::kTf32;
  want.m = 300, want.n = 100, want.k = 200;
  want.bias = true;
  want.epilogue = runtime::GemmEpilogue::kRelu;
  EXPECT_EQ(gemm->gemm, want) << runtime::gemmText(gemm->gemm);
  // The bias is parameter 2 (100 f32), D the program's result.
  ASSERT_GE(gemm->bias, 0);
  const runtime::BufferSlot& bias = p.slots.at(static_cast<size_t>(gemm->bias));
  EXPECT_EQ(bias.kind, runtime::BufferSlot::Kind::kParameter);
  EXPECT_EQ(bias.index, 2);
  EXPECT_EQ(bias.bytes, 400u);
  EXPECT_EQ(p.slots.at(static_cast<size_t>(gemm->d)).kind,
            runtime::BufferSlot::Kind::kOutput);
  ASSERT_EQ(c.executable.report.entries.size(), 1u);
  EXPECT_EQ(c.executable.report.entries[0].route, "library");
  EXPECT_EQ(c.executable.report.entries[0].tile,
            "cublaslt m=300 n=100 k=200 batch=1 tf32 bias relu");
}

TEST(MatmulSetting, AutoTakesSmallF32ProductsOnTtir) {
  // 300 * 200 * 100 = 6e6 <= 2^24 is small: f32 takes the TTIR route like
  // 16-bit products (its tiles rounded to TF32 to nearest).
  CompiledMatmul small = compileMatmulRoute(MatmulRoute::kAuto, 300, 200, 100);
  EXPECT_EQ(small.gemms, 0u);
  ASSERT_EQ(small.stages.ttir.size(), 1u);
  EXPECT_NE(small.stages.ttir[0].find("tt.bitcast"), std::string::npos);
  // 2048^2 * 2048 with k > 1024: the library.
  EXPECT_EQ(compileMatmulRoute(MatmulRoute::kAuto, 2048, 2048, 2048).gemms, 1u);
  // A different setting is a different executable.
  EXPECT_NE(compileMatmulRoute(MatmulRoute::kAuto, 16, 16, 16).executable.fingerprint,
            compileMatmulRoute(MatmulRoute::kLibrary, 16, 16, 16).executable.fingerprint);
}

}  // namespace
}  // namespace jft::compiler
