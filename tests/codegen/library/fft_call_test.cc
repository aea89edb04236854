// stablehlo.fft on the library route: the FftDesc each op becomes (batch =
// product of the leading dims, lengths = fft_length, kind and precision from
// the types; all read off by hand from the op), the errors for what no
// library FFT computes, and the assembled LibraryThunk (buffers, the IRFFT
// workspace as a temp, never the caller's read-only buffer).
#include "codegen/library/fft_call.h"

#include <gtest/gtest.h>

#include "codegen/library/backend.h"
#include "codegen/library/library_calls.h"
#include "codegen/ttir/backend.h"
#include "codegen/ttir/capability.h"
#include "compiler/compiler.h"
#include "compiler/program_assembly.h"
#include "compiler/program_checks.h"
#include "compiler/unsupported_ops.h"
#include "compiler/zoo_fixture.h"
#include "frontend/vhlo/import.h"
#include "ir/builder.h"
#include "passes/pipeline.h"
#include "runtime/program_check.h"

namespace jft::compiler {
namespace {

using namespace jft::codegen::library;

using ir::ElementType;
using ir::FftType;
using ir::OpKind;
using ir::Type;
using ir::ValueId;
using runtime::FftDesc;
using runtime::FftKind;

// main(x: in) -> fft(x) of `type` and `length`, returned.
ir::Module fftModule(const Type& in, const Type& out, FftType type,
                     std::vector<int64_t> length) {
  ir::Module m;
  ir::Builder b(m);
  auto args = b.beginFunction("main", {in}, {out});
  b.setLoc(b.fileLoc("signal.py", 12, 5));
  ValueId y = b.op1(OpKind::Fft, {args[0]}, out,
                    {{"fft_type", type}, {"fft_length", std::move(length)}});
  b.ret({y});
  b.endFunction();
  return m;
}

const ir::Op& fftOp(const ir::Module& m) {
  return m.functions.at(0).body.ops.at(0);
}

StatusOr<LibraryOpCall> lower(const ir::Module& m) {
  return lowerFftCall(m, fftOp(m));
}

const FftDesc& descOf(const LibraryOpCall& call) {
  return std::get<FftDesc>(call.op);
}

TEST(FftCall, RfftOfRowsIsOneBatchedTransform) {
  ir::Module m =
      fftModule(Type::tensor(ElementType::F32, {4, 256}),
                Type::tensor(ElementType::C64, {4, 129}), FftType::RFFT, {256});
  StatusOr<LibraryOpCall> call = lower(m);
  ASSERT_TRUE(call.isOk()) << call.status().toString();
  const FftDesc& d = descOf(*call);
  EXPECT_EQ(d.kind, FftKind::kRfft);
  EXPECT_FALSE(d.f64);
  EXPECT_EQ(d.lengths, std::vector<int64_t>{256});
  EXPECT_EQ(d.batch, 4);
  EXPECT_EQ(call->inputs, std::vector<ValueId>{m.functions[0].body.args[0]});
  EXPECT_EQ(call->outputs, fftOp(m).results);
  EXPECT_EQ(call->workspace_bytes, 0u);
  EXPECT_EQ(runtime::libraryOpText(call->op), "rfft [256] batch 4 f32");
  // 4 x 256 floats in, 4 x 129 complex64 out.
  EXPECT_EQ(runtime::fftInputBytes(d), 4u * 256 * 4);
  EXPECT_EQ(runtime::fftOutputBytes(d), 4u * 129 * 8);
}

TEST(FftCall, LeadingDimsFoldIntoTheBatch) {
  // c128 [2,3,4,8], a 2-d transform over [4,8]: 2 * 3 = 6 items.
  const Type z = Type::tensor(ElementType::C128, {2, 3, 4, 8});
  ir::Module m = fftModule(z, z, FftType::FFT, {4, 8});
  StatusOr<LibraryOpCall> call = lower(m);
  ASSERT_TRUE(call.isOk()) << call.status().toString();
  EXPECT_EQ(descOf(*call), (FftDesc{FftKind::kFft, true, {4, 8}, 6}));
  EXPECT_EQ(runtime::libraryOpText(call->op), "fft [4,8] batch 6 f64");
}

TEST(FftCall, ARankThreeInverseWithoutBatchDims) {
  const Type c = Type::tensor(ElementType::C64, {2, 3, 4});
  ir::Module m = fftModule(c, c, FftType::IFFT, {2, 3, 4});
  StatusOr<LibraryOpCall> call = lower(m);
  ASSERT_TRUE(call.isOk()) << call.status().toString();
  EXPECT_EQ(descOf(*call), (FftDesc{FftKind::kIfft, false, {2, 3, 4}, 1}));
  EXPECT_EQ(call->workspace_bytes, 0u);
  EXPECT_DOUBLE_EQ(runtime::fftScale(descOf(*call)), 1.0 / 24);
}

TEST(FftCall, IrfftGetsAWorkspaceOfItsOperandsBytes) {
  // complex64 [3,2,5] -> f32 [3,2,8]: n = 8 keeps 8 / 2 + 1 = 5 entries.
  ir::Module m =
      fftModule(Type::tensor(ElementType::C64, {3, 2, 5}),
                Type::tensor(ElementType::F32, {3, 2, 8}), FftType::IRFFT, {2, 8});
  StatusOr<LibraryOpCall> call = lower(m);
  ASSERT_TRUE(call.isOk()) << call.status().toString();
  EXPECT_EQ(descOf(*call), (FftDesc{FftKind::kIrfft, false, {2, 8}, 3}));
  EXPECT_EQ(call->workspace_bytes, 3u * 2 * 5 * 8);
  EXPECT_EQ(runtime::fftBufferCount(descOf(*call)), 3u);
}

TEST(FftCall, OddLengthsAndDoublePrecisionRealTransforms) {
  // n = 9 keeps 9 / 2 + 1 = 5 entries, like n = 8.
  ir::Module r = fftModule(Type::tensor(ElementType::F64, {7, 9}),
                           Type::tensor(ElementType::C128, {7, 5}), FftType::RFFT, {9});
  StatusOr<LibraryOpCall> rc = lower(r);
  ASSERT_TRUE(rc.isOk()) << rc.status().toString();
  EXPECT_EQ(descOf(*rc), (FftDesc{FftKind::kRfft, true, {9}, 7}));
  ir::Module i = fftModule(Type::tensor(ElementType::C128, {7, 5}),
                           Type::tensor(ElementType::F64, {7, 9}), FftType::IRFFT, {9});
  StatusOr<LibraryOpCall> ic = lower(i);
  ASSERT_TRUE(ic.isOk()) << ic.status().toString();
  EXPECT_EQ(descOf(*ic), (FftDesc{FftKind::kIrfft, true, {9}, 7}));
  EXPECT_EQ(ic->workspace_bytes, 7u * 5 * 16);
}

TEST(FftCall, EmptyTransformsAreCallsWithNothingToDo) {
  // A zero batch dim, and a zero length (RFFT keeps none of none).
  ir::Module a = fftModule(Type::tensor(ElementType::F32, {0, 16}),
                           Type::tensor(ElementType::C64, {0, 9}), FftType::RFFT, {16});
  StatusOr<LibraryOpCall> ac = lower(a);
  ASSERT_TRUE(ac.isOk()) << ac.status().toString();
  EXPECT_EQ(descOf(*ac).batch, 0);
  EXPECT_TRUE(runtime::fftIsEmpty(descOf(*ac)));
  ir::Module b = fftModule(Type::tensor(ElementType::C64, {4, 0}),
                           Type::tensor(ElementType::F32, {4, 0}), FftType::IRFFT, {0});
  StatusOr<LibraryOpCall> bc = lower(b);
  ASSERT_TRUE(bc.isOk()) << bc.status().toString();
  EXPECT_TRUE(runtime::fftIsEmpty(descOf(*bc)));
  EXPECT_EQ(bc->workspace_bytes, 0u);
  EXPECT_EQ(runtime::fftBufferCount(descOf(*bc)), 2u);
}

void expectError(const ir::Module& m, StatusCode code, const std::string& text) {
  StatusOr<LibraryOpCall> call = lower(m);
  ASSERT_FALSE(call.isOk());
  EXPECT_EQ(call.status().code(), code) << call.status().toString();
  EXPECT_NE(call.status().message().find(text), std::string::npos)
      << call.status().message();
}

TEST(FftCall, TheRealSideMustBeTheComplexSidesComponent) {
  // complex<f16> does not exist: an f16 or bf16 FFT is badly typed, not just
  // missing from the library.
  ir::Module m = fftModule(Type::tensor(ElementType::F16, {8}),
                           Type::tensor(ElementType::F16, {8}), FftType::IRFFT, {8});
  expectError(m, StatusCode::kInvalidArgument, "the operand must be complex");
  ir::Module bf = fftModule(Type::tensor(ElementType::BF16, {2, 8}),
                            Type::tensor(ElementType::C64, {2, 5}), FftType::RFFT, {8});
  expectError(bf, StatusCode::kInvalidArgument,
              "the operand must be the float type of the complex side");
}

TEST(FftCall, ErrorsNameTheOpTypesAndTheBrokenConstraint) {
  const Type c8 = Type::tensor(ElementType::C64, {4, 8});
  // FFT/IFFT read the operand's innermost dims as fft_length (no crop/pad).
  expectError(fftModule(c8, c8, FftType::FFT, {16}), StatusCode::kInvalidArgument,
              "fft (tensor<4x8xcomplex<f32>>) -> tensor<4x8xcomplex<f32>> FFT "
              "fft_length [16]: tensor<4x8xcomplex<f32>> must end in fft_length [16]");
  expectError(fftModule(c8, c8, FftType::IFFT, {1, 2, 3, 4}),
              StatusCode::kInvalidArgument, "fft_length must have 1 to 3 entries");
  expectError(fftModule(Type::tensor(ElementType::C64, {8}),
                        Type::tensor(ElementType::C64, {8}), FftType::FFT, {1, 8}),
              StatusCode::kInvalidArgument, "more entries than the operand's rank");
  expectError(fftModule(c8, Type::tensor(ElementType::C128, {4, 8}), FftType::FFT, {8}),
              StatusCode::kInvalidArgument, "the result type must be the operand's");
  // RFFT's result keeps n / 2 + 1 = 5 of 8.
  expectError(fftModule(Type::tensor(ElementType::F32, {4, 8}), c8, FftType::RFFT, {8}),
              StatusCode::kInvalidArgument,
              "the complex side tensor<4x8xcomplex<f32>> must have the real side's shape "
              "with its last dim n / 2 + 1 = 5");
  expectError(fftModule(Type::tensor(ElementType::C64, {4, 5}),
                        Type::tensor(ElementType::F64, {4, 8}), FftType::IRFFT, {8}),
              StatusCode::kInvalidArgument,
              "the result must be the float type of the complex side");
  expectError(fftModule(Type::tensor(ElementType::F32, {4, 8}),
                        Type::tensor(ElementType::F32, {4, 5}), FftType::RFFT, {8}),
              StatusCode::kInvalidArgument, "the result must be complex");
  expectError(fftModule(Type::tensor(ElementType::F32, {4, 8}),
                        Type::tensor(ElementType::F32, {4, 8}), FftType::FFT, {8}),
              StatusCode::kInvalidArgument,
              "FFT fft_length [8]: the operand must be complex");
  // IRFFT to a result of lower rank than fft_length.
  expectError(fftModule(Type::tensor(ElementType::C64, {4, 5}),
                        Type::tensor(ElementType::F32, {8}), FftType::IRFFT, {4, 8}),
              StatusCode::kInvalidArgument,
              "tensor<8xf32> must end in fft_length [4, 8]");
}

fusion::Plan fftPlan(const ir::Module& m) {
  fusion::PlanOptions options;
  options.library_route = true;
  return fusion::planFusions(m, m.functions.at(0),
                             ::jft::codegen::ttir::withTtir(options));
}

// Plans, lowers and assembles the one-fft module.
runtime::Program assembleFft(ir::Module& m, LibraryCall& call) {
  fusion::Plan plan = fftPlan(m);
  EXPECT_EQ(plan.fusions.size(), 1u);
  EXPECT_EQ(plan.fusions.at(0).route, fusion::Route::kLibrary);
  EXPECT_TRUE(libraryRejects(m, m.functions[0], plan).empty());
  StatusOr<LibraryCall> lowered = lowerLibraryGroup(m, m.functions[0], plan, 0);
  EXPECT_TRUE(lowered.isOk()) << lowered.status().toString();
  runtime::Program p;
  if (!lowered.isOk()) return p;
  call = std::move(lowered).value();
  EXPECT_TRUE(call.transposes.empty() && call.after.empty());
  const codegen::ttir::TtirBackend kernels({});
  StatusOr<codegen::GroupCode> code =
      LibraryBackend(kernels, {}).lower(m, m.functions[0], plan, 0);
  EXPECT_TRUE(code.isOk()) << code.status().toString();
  if (!code.isOk()) return p;
  Status assembled = assembleProgram(m, m.functions[0], plan, {*code}, p);
  EXPECT_TRUE(assembled.isOk()) << assembled.toString();
  p.output_aliases.assign(p.output_slots.size(), -1);  // compile() adds them
  return p;
}

TEST(FftCall, AssembledRfftReadsTheParameterAndWritesTheOutput) {
  ir::Module m =
      fftModule(Type::tensor(ElementType::F32, {4, 256}),
                Type::tensor(ElementType::C64, {4, 129}), FftType::RFFT, {256});
  LibraryCall call;
  runtime::Program p = assembleFft(m, call);
  EXPECT_EQ(libraryCallText(call), "rfft [256] batch 4 f32");
  ASSERT_EQ(p.thunks.size(), 1u);
  const auto& thunk = std::get<runtime::LibraryThunk>(p.thunks[0]);
  EXPECT_EQ(std::get<FftDesc>(thunk.op), (FftDesc{FftKind::kRfft, false, {256}, 4}));
  ASSERT_EQ(thunk.buffers.size(), 2u);
  EXPECT_EQ(p.slots.at(thunk.buffers[0]).kind, runtime::BufferSlot::Kind::kParameter);
  EXPECT_EQ(thunk.buffers[1], p.output_slots.at(0));
  EXPECT_EQ(p.slots.at(thunk.buffers[1]).bytes, 4u * 129 * 8);
  EXPECT_EQ(p.temp_bytes, 0u);
  testing::expectConsistentProgram(p, false);
  Status loadable = runtime::checkProgram(p, 32);
  EXPECT_TRUE(loadable.isOk()) << loadable.toString();
}

TEST(FftCall, AssembledIrfftRunsOnATempCopyNeverOnTheParameter) {
  ir::Module m = fftModule(Type::tensor(ElementType::C64, {6, 17}),
                           Type::tensor(ElementType::F32, {6, 32}), FftType::IRFFT, {32});
  LibraryCall call;
  runtime::Program p = assembleFft(m, call);
  ASSERT_EQ(p.thunks.size(), 1u);
  const auto& thunk = std::get<runtime::LibraryThunk>(p.thunks[0]);
  ASSERT_EQ(thunk.buffers.size(), 3u);
  EXPECT_EQ(p.slots.at(thunk.buffers[0]).kind, runtime::BufferSlot::Kind::kParameter);
  EXPECT_EQ(thunk.buffers[1], p.output_slots.at(0));
  const runtime::BufferSlot& workspace = p.slots.at(thunk.buffers[2]);
  EXPECT_EQ(workspace.kind, runtime::BufferSlot::Kind::kTemp);
  EXPECT_EQ(workspace.bytes, 6u * 17 * 8);  // the operand's bytes
  EXPECT_GE(p.temp_bytes, workspace.offset + workspace.bytes);
  testing::expectConsistentProgram(p, false);
  Status loadable = runtime::checkProgram(p, 32);
  EXPECT_TRUE(loadable.isOk()) << loadable.toString();

  // The load-time check refuses an IRFFT whose workspace is the parameter.
  runtime::Program broken = p;
  std::get<runtime::LibraryThunk>(broken.thunks[0]).buffers[2] = thunk.buffers[0];
  Status refused = runtime::checkProgram(broken, 32);
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(
      refused.message().find("irfft [32] batch 6 f32 workspace slot 0 is read-only"),
      std::string::npos)
      << refused.message();
}

TEST(FftCall, UnsupportedFftsAreListedWithTheirLine) {
  ir::Module m = fftModule(Type::tensor(ElementType::C64, {4, 8}),
                           Type::tensor(ElementType::C64, {4, 8}), FftType::FFT, {16});
  fusion::Plan plan = fftPlan(m);
  std::vector<fusion::UnsupportedOp> rejects = libraryRejects(m, m.functions[0], plan);
  ASSERT_EQ(rejects.size(), 1u);
  Status s = unsupportedOpsError(m, m.functions[0], Mode::kFlOnly, rejects);
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_NE(s.message().find("stablehlo.fft (tensor<4x8xcomplex<f32>>) -> "
                             "tensor<4x8xcomplex<f32>> at signal.py:12:5: "),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("must end in fft_length [16]"), std::string::npos)
      << s.message();
}

// The zoo's `fft` (program.mlir: rfft of tensor<4x256xf32>, length [256],
// then stablehlo.real of the tensor<4x129xcomplex<f32>>): the fft is one
// library call reading parameter 0 into a temp the real group reads. The
// real op's kernel (complex TTIR) is stood in for by a launch of its group,
// so this holds whether or not that kernel can be planned or emitted yet.
TEST(FftCall, ZooFftIsOneRfftIntoATempTheNextGroupReads) {
  const std::string bytes = testing::zooArtifact("fft");
  ASSERT_FALSE(bytes.empty());
  StatusOr<ir::Module> imported = frontend::importStableHlo(
      reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  ASSERT_TRUE(imported.isOk()) << imported.status().toString();
  ir::Module m = std::move(imported).value();
  ASSERT_TRUE(passes::runPasses(m).isOk());
  const ir::Function* f = m.entry();
  ASSERT_NE(f, nullptr);
  fusion::PlanOptions options;
  options.library_route = true;
  fusion::Plan plan = fusion::planFusions(m, *f, ::jft::codegen::ttir::withTtir(options));
  ASSERT_TRUE(libraryRejects(m, *f, plan).empty());
  // Until complex TTIR exists the real op is planned native (unsupported in
  // fl_only): the fft never is. Its group gets the stand-in launch.
  for (const fusion::UnsupportedOp& u : plan.unsupported)
    EXPECT_EQ(f->body.ops.at(u.op).kind, OpKind::Real) << u.what << ": " << u.reason;
  for (fusion::Fusion& group : plan.fusions)
    if (group.route == fusion::Route::kNative) group.route = fusion::Route::kTtir;

  std::vector<codegen::GroupCode> groups(plan.fusions.size());
  std::vector<std::string> texts;
  size_t launches = 0;
  const codegen::ttir::TtirBackend kernels({});
  for (size_t g = 0; g < plan.fusions.size(); ++g) {
    const fusion::Fusion& group = plan.fusions[g];
    if (group.route == fusion::Route::kTtir) {
      codegen::ttir::TtirKernel stand_in;
      stand_in.inputs = group.inputs;
      stand_in.outputs = group.outputs;
      groups[g].kernels = {stand_in};
      groups[g].first_kernel = 0;
      ++launches;
      continue;
    }
    if (group.route != fusion::Route::kLibrary) continue;
    StatusOr<codegen::GroupCode> code = LibraryBackend(kernels, {}).lower(m, *f, plan, g);
    ASSERT_TRUE(code.isOk()) << code.status().toString();
    texts.push_back(code->text);
    groups[g] = std::move(code).value();
  }
  EXPECT_EQ(texts, std::vector<std::string>{"rfft [256] batch 4 f32"});
  ASSERT_EQ(launches, 1u);  // stablehlo.real

  runtime::Program p;
  Status assembled = assembleProgram(m, *f, plan, std::move(groups), p);
  ASSERT_TRUE(assembled.isOk()) << assembled.toString();
  p.output_aliases.assign(p.output_slots.size(), -1);
  ASSERT_EQ(p.thunks.size(), 2u);
  const auto& fft = std::get<runtime::LibraryThunk>(p.thunks[0]);
  const auto& real = std::get<runtime::LaunchThunk>(p.thunks[1]);
  ASSERT_EQ(fft.buffers.size(), 2u);
  EXPECT_EQ(p.slots.at(fft.buffers[0]).kind, runtime::BufferSlot::Kind::kParameter);
  // in0.npy is [4, 256] f32; the spectrum is 4 x 129 complex64 in a temp.
  EXPECT_EQ(testing::npyShapes("fft", "in").at(0), (std::vector<int64_t>{4, 256}));
  EXPECT_EQ(p.parameter_bytes, std::vector<uint64_t>{4 * 256 * 4});
  const runtime::BufferSlot& spectrum = p.slots.at(fft.buffers[1]);
  EXPECT_EQ(spectrum.kind, runtime::BufferSlot::Kind::kTemp);
  EXPECT_EQ(spectrum.bytes, 4u * 129 * 8);
  // out0.npy is [4, 129] f32: real reads the spectrum, writes the output.
  EXPECT_EQ(testing::npyShapes("fft", "out").at(0), (std::vector<int64_t>{4, 129}));
  EXPECT_EQ(real.buffers, (std::vector<int>{fft.buffers[1], p.output_slots.at(0)}));
  EXPECT_EQ(p.slots.at(p.output_slots.at(0)).bytes, 4u * 129 * 4);
  testing::expectConsistentProgram(p, false);
}

}  // namespace
}  // namespace jft::compiler
