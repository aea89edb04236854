// Slots and thunks from hand-made plans: where each value lives, copies for
// returned parameters/constants/duplicates, constants' bytes, temps packed.
#include "compiler/program_assembly.h"

#include <gtest/gtest.h>

#include "compiler/control_regions.h"
#include "ir/builder.h"

namespace jft::compiler {
namespace {

using ir::ElementType;
using ir::OpKind;
using ir::Type;
using ir::ValueId;
using runtime::BufferSlot;
using Kind = runtime::BufferSlot::Kind;

const Type kF32x64 = Type::tensor(ElementType::F32, {64});  // 256 bytes

// A plan and its groups' code, built group by group in program order.
struct PlanBuilder {
  fusion::Plan plan;
  std::vector<codegen::GroupCode> groups;

  // The kernels of the last group.
  std::vector<codegen::ttir::TtirKernel>& kernels() { return groups.back().kernels; }

  void ttir(std::vector<size_t> ops, std::vector<ValueId> in, std::vector<ValueId> out,
            std::array<uint32_t, 3> grid = {1, 1, 1}) {
    fusion::Fusion f;
    f.id = static_cast<int>(plan.fusions.size());
    f.name = "fusion_" + std::to_string(f.id);
    f.route = fusion::Route::kTtir;
    f.family = fusion::Family::kLoop;
    f.ops = std::move(ops);
    f.inputs = in;
    f.outputs = out;
    codegen::ttir::TtirKernel kernel;
    kernel.inputs = in;
    kernel.outputs = out;
    kernel.grid = grid;
    groups.resize(plan.fusions.size());
    groups.emplace_back().kernels = {kernel};
    plan.fusions.push_back(std::move(f));
  }
  void none(std::vector<size_t> ops, std::vector<ValueId> out = {},
            fusion::Route route = fusion::Route::kNone) {
    fusion::Fusion f;
    f.id = static_cast<int>(plan.fusions.size());
    f.name = "group_" + std::to_string(f.id);
    f.route = route;
    f.ops = std::move(ops);
    f.outputs = std::move(out);
    plan.fusions.push_back(std::move(f));
    groups.resize(plan.fusions.size());
  }
};

// The groups with their kernels numbered in program order, as the compiler
// numbers them.
std::vector<codegen::GroupCode> numbered(std::vector<codegen::GroupCode> groups) {
  int next = 0;
  for (codegen::GroupCode& code : groups) {
    code.first_kernel = next;
    next += static_cast<int>(code.kernels.size());
  }
  return groups;
}

StatusOr<runtime::Program> assemble(const ir::Module& m, const PlanBuilder& p) {
  runtime::Program program;
  JFT_RETURN_IF_ERROR(
      assembleProgram(m, m.functions.at(0), p.plan, numbered(p.groups), program));
  return program;
}

const runtime::LaunchThunk& launchAt(const runtime::Program& p, size_t i) {
  return std::get<runtime::LaunchThunk>(p.thunks.at(i));
}
const runtime::CopyThunk& copyAt(const runtime::Program& p, size_t i) {
  return std::get<runtime::CopyThunk>(p.thunks.at(i));
}
const BufferSlot& slot(const runtime::Program& p, int i) {
  return p.slots.at(static_cast<size_t>(i));
}

TEST(AssembleProgram, OutputsWrittenInPlaceCopiesForTheRest) {
  ir::Module m;
  ir::Builder b(m);
  auto args =
      b.beginFunction("main", {kF32x64, kF32x64}, {kF32x64, kF32x64, kF32x64, kF32x64});
  ValueId v1 = b.op1(OpKind::Add, {args[0], args[1]}, kF32x64);  // op 0
  ValueId v2 = b.op1(OpKind::Multiply, {v1, v1}, kF32x64);       // op 1
  ValueId v3 = b.op1(OpKind::Exponential, {v2}, kF32x64);        // op 2
  std::vector<double> values(64);
  for (int i = 0; i < 64; ++i) values[static_cast<size_t>(i)] = i * 0.5;
  ir::DenseElements literal = ir::denseFromValues(kF32x64, values);
  ValueId c = b.constant(literal);  // op 3
  b.ret({v3, v3, args[0], c});
  b.endFunction();

  PlanBuilder p;
  p.ttir({0}, {args[0], args[1]}, {v1}, {4, 1, 1});
  p.ttir({1}, {v1}, {v2});
  p.ttir({2}, {v2}, {v3});
  p.none({3}, {c});
  StatusOr<runtime::Program> program = assemble(m, p);
  ASSERT_TRUE(program.isOk()) << program.status().toString();

  // Parameters and outputs.
  ASSERT_EQ(program->parameter_bytes, (std::vector<uint64_t>{256, 256}));
  ASSERT_EQ(program->output_slots.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    const BufferSlot& out = slot(*program, program->output_slots[static_cast<size_t>(i)]);
    EXPECT_EQ(out.kind, Kind::kOutput);
    EXPECT_EQ(out.index, i);
    EXPECT_EQ(out.bytes, 256u);
  }
  ASSERT_EQ(program->thunks.size(), 6u);  // 3 launches, 3 copies

  const runtime::LaunchThunk& first = launchAt(*program, 0);
  EXPECT_EQ(first.kernel, 0);
  EXPECT_EQ(first.grid, (std::array<uint32_t, 3>{4, 1, 1}));
  ASSERT_EQ(first.buffers.size(), 3u);
  EXPECT_EQ(slot(*program, first.buffers[0]).kind, Kind::kParameter);
  EXPECT_EQ(slot(*program, first.buffers[0]).index, 0);
  EXPECT_EQ(slot(*program, first.buffers[1]).index, 1);
  const BufferSlot& t1 = slot(*program, first.buffers[2]);
  EXPECT_EQ(t1.kind, Kind::kTemp);

  const runtime::LaunchThunk& second = launchAt(*program, 1);
  ASSERT_EQ(second.buffers.size(), 2u);
  EXPECT_EQ(second.buffers[0], first.buffers[2]);  // reads what the first wrote
  const BufferSlot& t2 = slot(*program, second.buffers[1]);
  EXPECT_EQ(t2.kind, Kind::kTemp);
  // v1 and v2 are both live during the second kernel.
  EXPECT_NE(t1.offset, t2.offset);
  EXPECT_EQ(program->temp_bytes, 512u);

  // The third kernel writes its result straight into output 0.
  const runtime::LaunchThunk& third = launchAt(*program, 2);
  EXPECT_EQ(third.buffers[0], second.buffers[1]);
  EXPECT_EQ(third.buffers[1], program->output_slots[0]);

  // Output 1 repeats output 0; output 2 is parameter 0; output 3 the constant.
  const runtime::CopyThunk& dup = copyAt(*program, 3);
  EXPECT_EQ(dup.source, program->output_slots[0]);
  EXPECT_EQ(dup.destination, program->output_slots[1]);
  EXPECT_EQ(dup.bytes, 256u);
  const runtime::CopyThunk& param = copyAt(*program, 4);
  EXPECT_EQ(slot(*program, param.source).kind, Kind::kParameter);
  EXPECT_EQ(slot(*program, param.source).index, 0);
  EXPECT_EQ(param.destination, program->output_slots[2]);
  const runtime::CopyThunk& constant = copyAt(*program, 5);
  const BufferSlot& cs = slot(*program, constant.source);
  EXPECT_EQ(cs.kind, Kind::kConstant);
  EXPECT_EQ(cs.bytes, 256u);
  EXPECT_EQ(cs.data, std::string(literal.bytes.begin(), literal.bytes.end()));
  EXPECT_EQ(constant.destination, program->output_slots[3]);
}

TEST(AssembleProgram, TempsOfAChainShareMemory) {
  ir::Module m;
  ir::Builder b(m);
  auto args = b.beginFunction("main", {kF32x64}, {kF32x64});
  ValueId v1 = b.op1(OpKind::Exponential, {args[0]}, kF32x64);
  ValueId v2 = b.op1(OpKind::Exponential, {v1}, kF32x64);
  ValueId v3 = b.op1(OpKind::Exponential, {v2}, kF32x64);
  ValueId v4 = b.op1(OpKind::Exponential, {v3}, kF32x64);
  b.ret({v4});
  b.endFunction();
  PlanBuilder p;
  p.ttir({0}, {args[0]}, {v1});
  p.ttir({1}, {v1}, {v2});
  p.ttir({2}, {v2}, {v3});
  p.ttir({3}, {v3}, {v4});
  StatusOr<runtime::Program> program = assemble(m, p);
  ASSERT_TRUE(program.isOk()) << program.status().toString();
  const BufferSlot& s1 = slot(*program, launchAt(*program, 0).buffers[1]);
  const BufferSlot& s3 = slot(*program, launchAt(*program, 2).buffers[1]);
  EXPECT_EQ(s1.kind, Kind::kTemp);
  EXPECT_EQ(s1.offset, s3.offset);  // v1 is dead once v3 is written
  EXPECT_EQ(program->temp_bytes, 512u);
  EXPECT_EQ(program->thunks.size(), 4u);
}

// A group that runs as two kernels (a scatter's copy and updates, a split
// reduction's partials and their reduction): both launches get the same
// buffers, the group's scratch after its outputs, and the scratch and the
// result the first stage writes are live together, never sharing bytes.
TEST(AssembleProgram, AGroupOfTwoKernelsSharesItsBuffersAndScratch) {
  ir::Module m;
  ir::Builder b(m);
  auto args = b.beginFunction("main", {kF32x64}, {kF32x64});
  ValueId v1 = b.op1(OpKind::Exponential, {args[0]}, kF32x64);
  ValueId v2 = b.op1(OpKind::Exponential, {v1}, kF32x64);
  b.ret({v2});
  b.endFunction();
  PlanBuilder p;
  p.ttir({0}, {args[0]}, {v1}, {8, 1, 1});
  p.kernels().back().scratch = {1024};
  codegen::ttir::TtirKernel second = p.kernels().back();
  second.stage = 1;
  second.grid = {2, 1, 1};
  p.kernels().push_back(second);
  p.ttir({1}, {v1}, {v2});
  StatusOr<runtime::Program> program = assemble(m, p);
  ASSERT_TRUE(program.isOk()) << program.status().toString();
  ASSERT_EQ(program->thunks.size(), 3u);
  const runtime::LaunchThunk& a = launchAt(*program, 0);
  const runtime::LaunchThunk& c = launchAt(*program, 1);
  EXPECT_EQ(a.kernel, 0);
  EXPECT_EQ(c.kernel, 1);
  EXPECT_EQ(c.grid, (std::array<uint32_t, 3>{2, 1, 1}));
  ASSERT_EQ(a.buffers.size(), 3u);  // x, v1, scratch
  EXPECT_EQ(a.buffers, c.buffers);
  const BufferSlot& result = slot(*program, a.buffers[1]);
  const BufferSlot& scratch = slot(*program, a.buffers[2]);
  EXPECT_EQ(result.kind, Kind::kTemp);
  EXPECT_EQ(scratch.kind, Kind::kTemp);
  EXPECT_EQ(scratch.bytes, 1024u);
  EXPECT_TRUE(scratch.offset >= result.offset + result.bytes ||
              result.offset >= scratch.offset + scratch.bytes);
  // The next group reads v1 from the same slot; it has no scratch.
  EXPECT_EQ(launchAt(*program, 2).buffers,
            (std::vector<int>{a.buffers[1], program->output_slots[0]}));
}

// The same through the RegionCode entry (which regions of while and
// case go through): one set of buffers for both stages.
TEST(AssembleProgram, RegionCodeAssemblyGivesBothStagesTheSameScratch) {
  ir::Module m;
  ir::Builder b(m);
  auto args = b.beginFunction("main", {kF32x64}, {kF32x64});
  ValueId v1 = b.op1(OpKind::Exponential, {args[0]}, kF32x64);
  ValueId v2 = b.op1(OpKind::Exponential, {v1}, kF32x64);
  b.ret({v2});
  b.endFunction();
  PlanBuilder p;
  p.ttir({0}, {args[0]}, {v1}, {8, 1, 1});
  p.kernels().back().scratch = {1024};
  codegen::ttir::TtirKernel second = p.kernels().back();
  second.stage = 1;
  p.kernels().push_back(second);
  p.ttir({1}, {v1}, {v2});
  RegionCode top;
  top.scope = m.functions.at(0);
  top.plan = p.plan;
  top.groups = numbered(p.groups);
  runtime::Program program;
  Status status = assembleProgram(m, m.functions.at(0), top, program);
  ASSERT_TRUE(status.isOk()) << status.toString();
  ASSERT_EQ(program.thunks.size(), 3u);
  const runtime::LaunchThunk& a = launchAt(program, 0);
  ASSERT_EQ(a.buffers.size(), 3u);
  EXPECT_EQ(launchAt(program, 1).buffers, a.buffers);
  const BufferSlot& result = slot(program, a.buffers[1]);
  const BufferSlot& scratch = slot(program, a.buffers[2]);
  EXPECT_EQ(scratch.kind, Kind::kTemp);
  EXPECT_EQ(scratch.bytes, 1024u);
  EXPECT_TRUE(scratch.offset >= result.offset + result.bytes ||
              result.offset >= scratch.offset + scratch.bytes);
  EXPECT_EQ(launchAt(program, 2).buffers.size(), 2u);
}

// Launches of a group whose stages disagree on their scratch are a compiler
// bug, reported as one.
TEST(AssembleProgram, StagesWithDifferentScratchAreInternal) {
  ir::Module m;
  ir::Builder b(m);
  auto args = b.beginFunction("main", {kF32x64}, {kF32x64});
  ValueId v1 = b.op1(OpKind::Exponential, {args[0]}, kF32x64);
  b.ret({v1});
  b.endFunction();
  PlanBuilder p;
  p.ttir({0}, {args[0]}, {v1});
  p.kernels().back().scratch = {1024};
  codegen::ttir::TtirKernel second = p.kernels().back();
  second.stage = 1;
  second.scratch = {};
  p.kernels().push_back(second);
  StatusOr<runtime::Program> program = assemble(m, p);
  ASSERT_FALSE(program.isOk());
  EXPECT_NE(program.status().message().find("scratch"), std::string::npos);
}

TEST(AssembleProgram, ForwardingOpsCostNothing) {
  ir::Module m;
  ir::Builder b(m);
  auto args = b.beginFunction("main", {kF32x64}, {kF32x64, kF32x64});
  ValueId v1 = b.op1(OpKind::Exponential, {args[0]}, kF32x64);  // 0
  ValueId t =
      b.op1(OpKind::Tuple, {v1, args[0]}, Type::makeTuple({kF32x64, kF32x64}));  // 1
  ValueId g0 =
      b.op1(OpKind::GetTupleElement, {t}, kF32x64, {{"index", int64_t{0}}});  // 2
  ValueId g1 =
      b.op1(OpKind::GetTupleElement, {t}, kF32x64, {{"index", int64_t{1}}});       // 3
  auto barrier = b.op(OpKind::OptimizationBarrier, {g0, g1}, {kF32x64, kF32x64});  // 4
  ValueId v2 = b.op1(OpKind::Negate, {barrier[1]}, kF32x64);                       // 5
  b.ret({barrier[0], v2});
  b.endFunction();
  PlanBuilder p;
  p.ttir({0}, {args[0]}, {v1});
  p.none({1, 2, 3, 4}, {barrier[0], barrier[1]});
  p.ttir({5}, {barrier[1]}, {v2});
  StatusOr<runtime::Program> program = assemble(m, p);
  ASSERT_TRUE(program.isOk()) << program.status().toString();
  ASSERT_EQ(program->thunks.size(), 2u);  // no copies
  EXPECT_EQ(launchAt(*program, 0).buffers[1], program->output_slots[0]);
  // The second kernel reads parameter 0 through tuple, gte and the barrier.
  const BufferSlot& in = slot(*program, launchAt(*program, 1).buffers[0]);
  EXPECT_EQ(in.kind, Kind::kParameter);
  EXPECT_EQ(launchAt(*program, 1).buffers[1], program->output_slots[1]);
  EXPECT_EQ(program->temp_bytes, 0u);
}

TEST(AssembleProgram, TokensAndZeroSizeValuesTakeNoMemory) {
  ir::Module m;
  ir::Builder b(m);
  Type empty = Type::tensor(ElementType::F32, {0, 8});
  auto args = b.beginFunction("main", {Type::token(), empty},
                              {Type::token(), empty, Type::token()});
  ValueId v = b.op1(OpKind::Exponential, {args[1]}, empty);         // 0
  ValueId tok = b.op1(OpKind::AfterAll, {args[0]}, Type::token());  // 1
  b.ret({args[0], v, tok});
  b.endFunction();
  PlanBuilder p;
  p.ttir({0}, {args[1]}, {v}, {0, 1, 1});
  p.none({1}, {tok});
  StatusOr<runtime::Program> program = assemble(m, p);
  ASSERT_TRUE(program.isOk()) << program.status().toString();
  EXPECT_EQ(program->parameter_bytes, (std::vector<uint64_t>{0, 0}));
  for (int s : program->output_slots) EXPECT_EQ(slot(*program, s).bytes, 0u);
  ASSERT_EQ(program->thunks.size(), 1u);  // nothing to copy for empty results
  EXPECT_EQ(program->temp_bytes, 0u);
}

TEST(AssembleProgram, NonSplatConstantReadByAKernelIsUploadedOnce) {
  ir::Module m;
  ir::Builder b(m);
  Type pred4 = Type::tensor(ElementType::PRED, {4});
  Type f4 = Type::tensor(ElementType::F32, {4});
  auto args = b.beginFunction("main", {f4}, {f4, f4});
  ValueId mask = b.constant(ir::denseFromValues(pred4, {1, 0, 0, 1}));  // 0
  ValueId zero =
      b.constant(ir::denseFromValues(Type::scalar(ElementType::F32), {0}));  // 1
  ValueId zeros = b.op1(OpKind::BroadcastInDim, {zero}, f4);                 // 2
  ValueId a = b.op1(OpKind::Select, {mask, args[0], zeros}, f4);             // 3
  ValueId c = b.op1(OpKind::Select, {mask, zeros, args[0]}, f4);             // 4
  b.ret({a, c});
  b.endFunction();
  PlanBuilder p;
  p.none({0}, {mask});
  // The scalar constant is inlined into both groups (not an input).
  p.ttir({1, 2, 3}, {mask, args[0]}, {a});
  p.ttir({1, 2, 4}, {mask, args[0]}, {c});
  StatusOr<runtime::Program> program = assemble(m, p);
  ASSERT_TRUE(program.isOk()) << program.status().toString();
  int first = launchAt(*program, 0).buffers[0];
  EXPECT_EQ(first, launchAt(*program, 1).buffers[0]);
  const BufferSlot& s = slot(*program, first);
  EXPECT_EQ(s.kind, Kind::kConstant);
  EXPECT_EQ(s.bytes, 4u);  // pred: one byte per element
  EXPECT_EQ(s.data, std::string("\x01\x00\x00\x01", 4));
  int constants = 0;
  for (const BufferSlot& any : program->slots) constants += any.kind == Kind::kConstant;
  EXPECT_EQ(constants, 1);
}

TEST(AssembleProgram, ASplatConstantReturnedGetsItsBytes) {
  ir::Module m;
  ir::Builder b(m);
  Type i32x3 = Type::tensor(ElementType::I32, {3});
  b.beginFunction("main", {}, {i32x3});
  ValueId c = b.constant(ir::denseFromValues(i32x3, {7, 7, 7}));
  b.ret({c});
  b.endFunction();
  PlanBuilder p;
  p.none({0}, {c});
  StatusOr<runtime::Program> program = assemble(m, p);
  ASSERT_TRUE(program.isOk()) << program.status().toString();
  ASSERT_EQ(program->thunks.size(), 1u);
  const BufferSlot& s = slot(*program, copyAt(*program, 0).source);
  EXPECT_EQ(s.kind, Kind::kConstant);
  EXPECT_EQ(s.data, std::string("\x07\0\0\0\x07\0\0\0\x07\0\0\0", 12));
}

TEST(AssembleProgram, WhatHasNoRouteIsNamed) {
  ir::Module m;
  ir::Builder b(m);
  auto args = b.beginFunction("main", {kF32x64}, {kF32x64});
  b.setLoc(b.fileLoc("model.py", 12, 4));
  ValueId v = b.op1(OpKind::Exponential, {args[0]}, kF32x64);
  b.ret({v});
  b.endFunction();
  {
    PlanBuilder p;
    p.none({0}, {v});
    Status s = assemble(m, p).status();
    EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
    EXPECT_NE(s.message().find("stablehlo.exponential"), std::string::npos)
        << s.message();
    EXPECT_NE(s.message().find("model.py:12"), std::string::npos) << s.message();
  }
  {
    PlanBuilder p;
    p.none({0}, {v}, fusion::Route::kLibrary);  // the compiler lowers every one
    Status s = assemble(m, p).status();
    EXPECT_EQ(s.code(), StatusCode::kInternal);
    EXPECT_NE(s.message().find("library"), std::string::npos) << s.message();
  }
  {
    PlanBuilder p;  // a TTIR group without its launch is our bug, not the user's
    p.ttir({0}, {args[0]}, {v});
    p.kernels().clear();
    EXPECT_EQ(assemble(m, p).status().code(), StatusCode::kInternal);
  }
}

TEST(AssembleProgram, TupleParametersAreRejected) {
  ir::Module m;
  ir::Builder b(m);
  Type pair = Type::makeTuple({kF32x64, kF32x64});
  auto args = b.beginFunction("main", {pair}, {kF32x64});
  ValueId g = b.op1(OpKind::GetTupleElement, {args[0]}, kF32x64, {{"index", int64_t{0}}});
  b.ret({g});
  b.endFunction();
  PlanBuilder p;
  p.none({0}, {g});
  Status s = assemble(m, p).status();
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_NE(s.message().find("tuple"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace jft::compiler
