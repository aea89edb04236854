// The library route: dots become GemmThunks (shapes, strides and precision
// checked by hand against each zoo program's StableHLO text), operands that
// need a permutation get a TTIR transpose kernel writing a temp, and library
// ops without a call are listed like any unsupported op.
#include <gtest/gtest.h>

#include <filesystem>
#include <tuple>

#include "codegen/library/library_calls.h"
#include "codegen/ttir/capability.h"
#include "codegen/ttir/kernel.h"
#include "compiler/compiler.h"
#include "compiler/program_assembly.h"
#include "compiler/program_checks.h"
#include "compiler/unsupported_ops.h"
#include "compiler/zoo_fixture.h"
#include "ir/builder.h"
#include "runtime/program_check.h"

#ifdef JFT_FAKE_WORKER
#include "kernel_compiler/fake_worker_command.h"
#include "kernel_compiler/kernel_compiler.h"
#endif

namespace jft::compiler {
namespace {

using namespace jft::codegen::library;

using ir::ElementType;
using ir::OpKind;
using ir::Type;
using ir::ValueId;
using runtime::GemmCompute;

// batch, m, n, k, A stored transposed, B stored transposed, A ld, B ld, and
// whether an f32 bias add (broadcast along the rows) alone reads the
// product, so that the library adds it (fusion/library_epilogue.h).
struct Expected {
  int64_t batch, m, n, k;
  bool at, bt;
  int64_t lda, ldb;
  bool bias = false;
};

std::vector<runtime::GemmThunk> gemmsOf(const runtime::Program& p) {
  std::vector<runtime::GemmThunk> gemms;
  for (const runtime::Thunk& t : p.thunks)
    if (const auto* g = std::get_if<runtime::GemmThunk>(&t)) gemms.push_back(*g);
  return gemms;
}

void expectGemms(const runtime::Program& p, const std::vector<Expected>& expected) {
  std::vector<runtime::GemmThunk> gemms = gemmsOf(p);
  ASSERT_EQ(gemms.size(), expected.size());
  for (size_t i = 0; i < gemms.size(); ++i) {
    const runtime::GemmDesc& g = gemms[i].gemm;
    const Expected& e = expected[i];
    SCOPED_TRACE("gemm " + std::to_string(i) + ": " + runtime::gemmText(g));
    EXPECT_EQ(std::tie(g.batch, g.m, g.n, g.k), std::tie(e.batch, e.m, e.n, e.k));
    EXPECT_EQ(g.a.transpose, e.at);
    EXPECT_EQ(g.b.transpose, e.bt);
    EXPECT_EQ(g.a.ld, e.lda);
    EXPECT_EQ(g.b.ld, e.ldb);
    // Dense [batch][m][n] results; DEFAULT precision lets f32 round to TF32.
    EXPECT_EQ(g.d_ld, e.n);
    EXPECT_EQ(g.d_batch_stride, e.m * e.n);
    EXPECT_EQ(g.compute, GemmCompute::kTf32);
    EXPECT_EQ(g.bias, e.bias);
    EXPECT_EQ(gemms[i].bias >= 0, e.bias);
    if (e.bias) {  // the n-vector of f32
      EXPECT_EQ(p.slots.at(static_cast<size_t>(gemms[i].bias)).bytes,
                static_cast<uint64_t>(e.n * 4));
    }
    EXPECT_EQ(g.epilogue, runtime::GemmEpilogue::kNone);
    // D is the whole of its slot.
    EXPECT_EQ(p.slots.at(static_cast<size_t>(gemms[i].d)).bytes,
              static_cast<uint64_t>(e.batch * e.m * e.n * 4));
  }
}

struct ZooCase {
  std::string name;
  std::vector<Expected> gemms;
};

class LibraryZoo : public ::testing::TestWithParam<ZooCase> {};

TEST_P(LibraryZoo, DotsBecomeTheHandCheckedGemms) {
  const ZooCase& c = GetParam();
  Options options;
  options.mode = Mode::kFlOnly;
  options.matmul = fusion::MatmulRoute::kLibrary;  // the library route under test
  StatusOr<Executable> result = compile(testing::zooArtifact(c.name), options, nullptr);
  ASSERT_TRUE(result.isOk()) << result.status().toString();
  const runtime::Program& p = result->program;
  expectGemms(p, c.gemms);
  testing::expectConsistentProgram(p, false);

  // One library row per product, its text naming the same sizes; no zoo dot
  // needs a permuted operand, so every launch is a TTIR group's (or several
  // groups' combined launch: those rows say "in hfusion_...").
  std::vector<std::string> rows;
  size_t ttir = 0;
  for (const RouteEntry& e : result->report.entries) {
    if (e.route == "library") rows.push_back(e.tile);
    ttir += e.route == "ttir" && !e.tile.starts_with("in hfusion_");
  }
  ASSERT_EQ(rows.size(), c.gemms.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const Expected& e = c.gemms[i];
    EXPECT_EQ(rows[i], "cublaslt m=" + std::to_string(e.m) + " n=" + std::to_string(e.n) +
                           " k=" + std::to_string(e.k) + " batch=" +
                           std::to_string(e.batch) + " tf32" + (e.bias ? " bias" : ""));
  }
  size_t launches = 0;
  for (const runtime::Thunk& t : p.thunks)
    launches += std::holds_alternative<runtime::LaunchThunk>(t);
  EXPECT_EQ(launches, ttir);
  EXPECT_NE(result->report.text().find("library " + std::to_string(c.gemms.size())),
            std::string::npos)
      << result->report.text();

#ifdef JFT_FAKE_WORKER
  // With binaries, the runtime's load-time check accepts the program.
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() /
                 ("jft_library_route_" + std::to_string(::getpid()) + "_" + c.name);
  fs::remove_all(dir);
  {
    kernel_compiler::KernelCompilerOptions kc;
    kc.pool = kernel_compiler::testing::fakePoolOptions(2, (dir / "failures").string());
    kc.cache_dir = (dir / "cache").string();
    auto compiler = kernel_compiler::KernelCompiler::create(std::move(kc));
    ASSERT_TRUE(compiler.isOk()) << compiler.status().toString();
    StatusOr<Executable> built =
        compile(testing::zooArtifact(c.name), options, compiler->get());
    ASSERT_TRUE(built.isOk()) << built.status().toString();
    testing::expectConsistentProgram(built->program, true);
    Status loadable = runtime::checkProgram(built->program, 32);
    EXPECT_TRUE(loadable.isOk()) << loadable.toString();
    expectGemms(built->program, c.gemms);
  }
  fs::remove_all(dir);
#endif
}

// Read off each program.mlir: dot_general operand shapes, batching and
// contracting dims. A row-major operand whose contracting dim is outermost
// is read transposed, ld = its row length.
INSTANTIATE_TEST_SUITE_P(
    Zoo, LibraryZoo,
    ::testing::Values(
        // [16,64]x[64,256], [16,256]x[256,64]; the second's bias add
        // (broadcast of [64] along dims [1]) is returned: fused. The first's
        // feeds the GELU and stays in its loop kernel.
        ZooCase{"mlp",
                {{1, 16, 256, 64, false, false, 64, 256},
                 {1, 16, 64, 256, false, false, 256, 64, true}}},
        // q.k^T: [2,4,64,32]x[2,4,64,32] batch [0,1], contract 3x3;
        // p.v: [2,4,64,64]x[2,4,64,32] contract 3x2.
        ZooCase{"attention",
                {{8, 64, 64, 32, false, true, 32, 32},
                 {8, 64, 32, 64, false, false, 64, 32}}},
        // [2,32,64]x[64,192]; heads [2,4,32,16]x[2,4,32,16] contract 3x3 and
        // [2,4,32,32]x[2,4,32,16] contract 3x2; then [2,32,64]x[64,64],
        // [2,32,64]x[64,256], [2,32,256]x[256,64].
        ZooCase{"transformer_block",
                {{1, 64, 192, 64, false, false, 64, 192},
                 {8, 32, 32, 16, false, true, 16, 16},
                 {8, 32, 16, 32, false, false, 32, 16},
                 {1, 64, 64, 64, false, false, 64, 64},
                 {1, 64, 256, 64, false, false, 64, 256},
                 {1, 64, 64, 256, false, false, 256, 64}}},
        // forward [16,32]x[32,64], [16,64]x[64,8]; backward
        // [16,8]^T x [16,64] (contract 0x0), [16,8]x[64,8]^T (1x1),
        // [16,64]^T x [16,32] (0x0). The first forward product's bias add
        // (%3, read by the relu and by relu's gradient mask) is fused; the
        // second's is followed by a subtract in the same loop kernel.
        ZooCase{"mlp_train_step",
                {{1, 16, 64, 32, false, false, 32, 64, true},
                 {1, 16, 8, 64, false, false, 64, 8},
                 {1, 8, 64, 16, true, false, 8, 64},
                 {1, 16, 64, 8, false, true, 8, 8},
                 {1, 64, 32, 16, true, false, 64, 32}}}),
    [](const ::testing::TestParamInfo<ZooCase>& info) { return info.param.name; });

const Type kF32_8x16 = Type::tensor(ElementType::F32, {8, 16});

// main(lhs, rhs) -> dot_general(lhs, rhs) with `numbers`, returned.
ir::Module dotModule(const Type& lhs, const Type& rhs, const Type& result,
                     ir::DotDimensionNumbers numbers,
                     std::vector<ir::Precision> precision = {}) {
  ir::Module m;
  ir::Builder b(m);
  auto args = b.beginFunction("main", {lhs, rhs}, {result});
  b.setLoc(b.fileLoc("model.py", 7, 3));
  ir::NamedAttrs attrs = {{"dot_dimension_numbers", numbers}};
  if (!precision.empty()) attrs.emplace_back("precision_config", precision);
  ValueId d = b.op1(OpKind::DotGeneral, {args[0], args[1]}, result, attrs);
  b.ret({d});
  b.endFunction();
  return m;
}

fusion::Plan libraryPlan(const ir::Module& m) {
  fusion::PlanOptions options;
  options.library_route = true;
  options.matmul = fusion::MatmulRoute::kLibrary;
  return fusion::planFusions(m, m.functions.at(0),
                             ::jft::codegen::ttir::withTtir(options));
}

TEST(LibraryRoute, IntegerDotsAreListedWithTheGemmPlannersReason) {
  const Type i32 = Type::tensor(ElementType::I32, {8, 16});
  ir::Module m = dotModule(i32, Type::tensor(ElementType::I32, {16, 4}),
                           Type::tensor(ElementType::I32, {8, 4}), {{}, {}, {1}, {0}});
  fusion::Plan plan = libraryPlan(m);
  ASSERT_TRUE(plan.unsupported.empty());
  std::vector<fusion::UnsupportedOp> rejects = libraryRejects(m, m.functions[0], plan);
  ASSERT_EQ(rejects.size(), 1u);
  EXPECT_EQ(rejects[0].op, 0u);
  Status s = unsupportedOpsError(m, m.functions[0], Mode::kFlOnly, rejects);
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_NE(s.message().find("stablehlo.dot_general (tensor<8x16xi32>, tensor<16x4xi32>) "
                             "-> tensor<8x4xi32> at model.py:7:3: dot_general i32 x i32 "
                             "-> i32 has no library GEMM"),
            std::string::npos)
      << s.message();
}

TEST(LibraryRoute, HighestPrecisionComputesInF32) {
  ir::Module m = dotModule(kF32_8x16, Type::tensor(ElementType::F32, {16, 4}),
                           Type::tensor(ElementType::F32, {8, 4}), {{}, {}, {1}, {0}},
                           {ir::Precision::HIGHEST, ir::Precision::HIGHEST});
  fusion::Plan plan = libraryPlan(m);
  ASSERT_TRUE(libraryRejects(m, m.functions[0], plan).empty());
  StatusOr<LibraryCall> call = lowerLibraryGroup(m, m.functions[0], plan, 0);
  ASSERT_TRUE(call.isOk()) << call.status().toString();
  EXPECT_EQ(call->dot.gemm.compute, GemmCompute::kF32);
  EXPECT_EQ(libraryCallText(*call), "cublaslt m=8 n=4 k=16 batch=1");
}

TEST(LibraryRoute, TheOlderDotContractsLastWithFirst) {
  ir::Module m;
  ir::Builder b(m);
  auto args =
      b.beginFunction("main", {kF32_8x16, Type::tensor(ElementType::F32, {16, 4})},
                      {Type::tensor(ElementType::F32, {8, 4})});
  ValueId d =
      b.op1(OpKind::Dot, {args[0], args[1]}, Type::tensor(ElementType::F32, {8, 4}));
  b.ret({d});
  b.endFunction();
  fusion::Plan plan = libraryPlan(m);
  ASSERT_TRUE(libraryRejects(m, m.functions[0], plan).empty());
  StatusOr<LibraryCall> call = lowerLibraryGroup(m, m.functions[0], plan, 0);
  ASSERT_TRUE(call.isOk()) << call.status().toString();
  EXPECT_EQ(libraryCallText(*call), "cublaslt m=8 n=4 k=16 batch=1 tf32");
  EXPECT_TRUE(call->transposes.empty());
}

// lhs [4,8,16] contracting dims 0 and 2 (not adjacent in memory): the lhs
// must become [8,4,16] (m=8, k=64) before the product; the rhs [4,16,32]
// contracting 0 and 1 is read in place (k=64 rows of n=32).
TEST(LibraryRoute, APermutedOperandIsATtirTransposeIntoATemp) {
  const Type lhs = Type::tensor(ElementType::F32, {4, 8, 16});
  const Type rhs = Type::tensor(ElementType::F32, {4, 16, 32});
  const Type out = Type::tensor(ElementType::F32, {8, 32});
  ir::Module m = dotModule(lhs, rhs, out, {{}, {}, {0, 2}, {0, 1}});
  const ir::Function& f = m.functions[0];
  fusion::Plan plan = libraryPlan(m);
  ASSERT_EQ(plan.fusions.size(), 1u);
  ASSERT_EQ(plan.fusions[0].route, fusion::Route::kLibrary);
  ASSERT_TRUE(libraryRejects(m, f, plan).empty());
  StatusOr<LibraryCall> call = lowerLibraryGroup(m, f, plan, 0);
  ASSERT_TRUE(call.isOk()) << call.status().toString();
  EXPECT_EQ(libraryCallText(*call), "cublaslt m=8 n=32 k=64 batch=1 tf32 transpose=lhs");
  ASSERT_EQ(call->transposes.size(), 1u);
  const OperandTranspose& t = call->transposes[0];
  const ir::Op& op = t.scratch.body.ops.at(0);
  EXPECT_EQ(op.kind, OpKind::Transpose);
  EXPECT_EQ(op.operands, std::vector<ValueId>{f.body.args[0]});
  EXPECT_EQ(*ir::findAttrAs<std::vector<int64_t>>(op.attrs, "permutation"),
            (std::vector<int64_t>{1, 0, 2}));
  EXPECT_EQ(m.typeOf(call->a).dims, (std::vector<int64_t>{8, 4, 16}));
  EXPECT_EQ(call->a, op.results[0]);
  EXPECT_EQ(call->b, f.body.args[1]);
  const runtime::GemmDesc& g = call->dot.gemm;
  EXPECT_FALSE(g.a.transpose);
  EXPECT_EQ(g.a.ld, 64);
  EXPECT_EQ(g.b.ld, 32);

  // The transpose is an ordinary loop kernel reading lhs, writing the temp.
  StatusOr<codegen::ttir::TtirKernel> kernel =
      codegen::ttir::emitKernel(m, t.scratch, t.group);
  ASSERT_TRUE(kernel.isOk()) << kernel.status().toString();
  EXPECT_NE(kernel->ttir.find("tt.func public @" + kernel->name), std::string::npos);
  EXPECT_EQ(kernel->inputs, std::vector<ValueId>{f.body.args[0]});
  EXPECT_EQ(kernel->outputs, std::vector<ValueId>{call->a});

  // Assembled: the launch, then the product reading its temp and writing the
  // output in place.
  runtime::Program p;
  codegen::GroupCode code;
  code.kernels = {*kernel};
  code.after_call = 1;
  code.first_kernel = 0;
  code.call = codegen::Call{runtime::GemmThunk{g}, {call->a, call->b}, {call->d}};
  ASSERT_TRUE(assembleProgram(m, f, plan, {code}, p).isOk());
  ASSERT_EQ(p.thunks.size(), 2u);
  const auto& launch = std::get<runtime::LaunchThunk>(p.thunks[0]);
  const auto& gemm = std::get<runtime::GemmThunk>(p.thunks[1]);
  ASSERT_EQ(launch.buffers.size(), 2u);
  EXPECT_EQ(launch.buffers[0], 0);  // parameter 0
  EXPECT_EQ(gemm.a, launch.buffers[1]);
  EXPECT_EQ(p.slots[static_cast<size_t>(gemm.a)].kind, runtime::BufferSlot::Kind::kTemp);
  EXPECT_EQ(p.slots[static_cast<size_t>(gemm.a)].bytes, 4u * 8 * 4 * 16);
  EXPECT_EQ(gemm.b, 1);  // parameter 1
  EXPECT_EQ(gemm.d, p.output_slots[0]);
  EXPECT_GE(p.temp_bytes, 4u * 8 * 4 * 16);
  p.output_aliases.assign(1, -1);  // compile() adds them after assembly
  testing::expectConsistentProgram(p, false);
}

TEST(LibraryRoute, ALibraryGroupWithoutItsCallIsOurBug) {
  ir::Module m = dotModule(kF32_8x16, Type::tensor(ElementType::F32, {16, 4}),
                           Type::tensor(ElementType::F32, {8, 4}), {{}, {}, {1}, {0}});
  fusion::Plan plan = libraryPlan(m);
  runtime::Program p;
  Status s = assembleProgram(m, m.functions[0], plan, {}, p);
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_NE(s.message().find("library group without its code"), std::string::npos);
}

}  // namespace
}  // namespace jft::compiler
