// A Pallas kernel through the pipeline under XLA_MODE=fl_only: its module is
// handed on as given (bytecode), launched on the configured grid with one
// buffer per operand then per result; an aliased result is first filled
// with its operand by a byte copy kernel and then passed at both positions.
#include <gtest/gtest.h>

#include "codegen/ttir/pallas_kernel.h"
#include "compiler/compiler.h"
#include "compiler/ir_shorthands.h"
#include "fusion/pallas_call.h"
#include "ir/builder.h"

namespace jft::compiler {
namespace {

using ir::ElementType;
using ir::OpKind;
using ir::Type;
using testing::f32;

const std::string kBytecode = std::string("ML\xEFR", 4) + std::string("\x00\x05tt", 4);

// y, o = pallas(exp(x), x) with o aliased to operand 1 when `alias`;
// returns (y + x, o).
ir::Module pallasProgram(bool alias) {
  ir::Module m;
  m.name = "pallas";
  ir::Builder b(m);
  auto x = b.beginFunction("main", {f32({300})}, {f32({300}), f32({300})});
  ir::ValueId e = b.op1(OpKind::Exponential, {x[0]}, f32({300}));
  ir::NamedAttrs config = {{"name", std::string("add_kernel")},
                           {"ir", kBytecode},
                           {"num_stages", int64_t{2}},
                           {"num_warps", int64_t{8}},
                           {"grid_x", int64_t{3}},
                           {"grid_y", int64_t{2}},
                           {"grid_z", int64_t{1}},
                           {"debug", false}};
  ir::NamedAttrs attrs = {{"call_target_name", std::string(fusion::kPallasTritonTarget)},
                          {"api_version", int64_t{4}},
                          {"backend_config", std::move(config)}};
  if (alias)
    attrs.push_back(
        {"output_operand_aliases", std::vector<ir::OutputOperandAlias>{{{1}, 1, {}}}});
  b.setLoc(b.fileLoc("kernels.py", 30, 2));
  auto r =
      b.op(OpKind::CustomCall, {e, x[0]}, {f32({300}), f32({300})}, std::move(attrs));
  b.setLoc(ir::kUnknownLoc);
  ir::ValueId sum = b.op1(OpKind::Add, {r[0], x[0]}, f32({300}));
  b.ret({sum, r[1]});
  b.endFunction();
  return m;
}

std::vector<const runtime::LaunchThunk*> launches(const runtime::Program& p) {
  std::vector<const runtime::LaunchThunk*> out;
  for (const runtime::Thunk& t : p.thunks)
    if (const auto* l = std::get_if<runtime::LaunchThunk>(&t)) out.push_back(l);
  return out;
}

TEST(PallasRoute, TheGivenModuleRunsOnItsGridUnderFlOnly) {
  Options options;
  options.mode = Mode::kFlOnly;
  Stages stages;
  StatusOr<Executable> built =
      compileModule(pallasProgram(false), options, nullptr, &stages);
  ASSERT_TRUE(built.isOk()) << built.status().toString();
  // exp, the Pallas kernel, the add.
  ASSERT_EQ(stages.ttir.size(), 3u) << stages.plan;
  EXPECT_EQ(stages.ttir[1], kBytecode);
  EXPECT_EQ(stages.kernel_names[1], "add_kernel");
  const auto l = launches(built->program);
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(l[1]->grid, (std::array<uint32_t, 3>{3, 2, 1}));
  // Operands (exp's result, the parameter) then both results.
  ASSERT_EQ(l[1]->buffers.size(), 4u);
  EXPECT_EQ(l[1]->buffers[0], l[0]->buffers.back());  // exp's output
  EXPECT_EQ(l[1]->buffers[1], l[0]->buffers[0]);      // x
  EXPECT_NE(l[1]->buffers[2], l[1]->buffers[3]);
  EXPECT_EQ(l[2]->buffers[0], l[1]->buffers[2]);  // the add reads result 0
}

TEST(PallasRoute, AnAliasedResultIsCopiedThenSharedByBothParameters) {
  Options options;
  options.mode = Mode::kFlOnly;
  Stages stages;
  StatusOr<Executable> built =
      compileModule(pallasProgram(true), options, nullptr, &stages);
  ASSERT_TRUE(built.isOk()) << built.status().toString();
  const auto l = launches(built->program);
  ASSERT_EQ(l.size(), 4u) << stages.plan;  // exp, copy, pallas, add
  const runtime::LaunchThunk& copy = *l[1];
  const runtime::LaunchThunk& kernel = *l[2];
  // 300 f32 = 1200 bytes: two programs of 1024 bytes.
  EXPECT_EQ(copy.grid, (std::array<uint32_t, 3>{2, 1, 1}));
  EXPECT_EQ(stages.ttir[1], codegen::ttir::byteCopyKernel(stages.kernel_names[1], 1200));
  ASSERT_EQ(copy.buffers.size(), 2u);
  EXPECT_EQ(copy.buffers[0], l[0]->buffers[0]);  // from x
  ASSERT_EQ(kernel.buffers.size(), 4u);
  EXPECT_EQ(copy.buffers[1], kernel.buffers[3]);    // into result 1
  EXPECT_EQ(kernel.buffers[1], kernel.buffers[3]);  // operand 1 is result 1's memory
  EXPECT_NE(kernel.buffers[1], copy.buffers[0]);    // x itself is never written
}

TEST(PallasRoute, ABadConfigFailsTheCompileNamingTheLine) {
  ir::Module m = pallasProgram(false);
  ir::Op& call = m.findFunction("main")->body.ops[1];
  auto& config = std::get<ir::NamedAttrs>(call.attrs[2].second.value);
  config.push_back({"zeroed_outputs", std::vector<int64_t>{0}});
  Options options;
  options.mode = Mode::kFlOnly;
  StatusOr<Executable> built = compileModule(std::move(m), options, nullptr);
  ASSERT_FALSE(built.isOk());
  const std::string text = built.status().toString();
  EXPECT_NE(text.find("kernels.py:30"), std::string::npos) << text;
  EXPECT_NE(text.find("unknown key `zeroed_outputs`"), std::string::npos) << text;
}

TEST(PallasRoute, ByteCopyKernelCoversEveryByte) {
  EXPECT_EQ(codegen::ttir::byteCopyPrograms(1), 1u);
  EXPECT_EQ(codegen::ttir::byteCopyPrograms(1024), 1u);
  EXPECT_EQ(codegen::ttir::byteCopyPrograms(1025), 2u);
  const std::string ttir = codegen::ttir::byteCopyKernel("k", 5000);
  EXPECT_NE(ttir.find("tt.func public @k("), std::string::npos);
  EXPECT_NE(ttir.find("dense<5000> : tensor<1024xi64>"), std::string::npos);
}

}  // namespace
}  // namespace jft::compiler
