// Horizontal fusion: two loop kernels (sin on f32[1000], x + x on i32[7]) as
// one launch; each member a private function of its program id, the wrapper
// giving each its range of the combined grid, the text accepted by the TTIR
// syntax checker. Members that cannot join are named.
#include <gtest/gtest.h>

#include "codegen/ttir/horizontal.h"
#include "emit_test_util.h"
#include "launch_dump.h"

namespace jft::codegen::ttir::testing {
namespace {

using fusion::Family;

TtirKernel loopKernel(OpKind kind, const Type& type, const std::string& name) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {type}, {type});
  ValueId y =
      kind == OpKind::Add ? b.op1(kind, {a[0], a[0]}, type) : b.op1(kind, {a[0]}, type);
  b.ret({y});
  b.endFunction();
  StatusOr<TtirKernel> k =
      emitKernel(m, *m.entry(), wholeFunction(m, Family::kLoop, name));
  EXPECT_TRUE(k.isOk()) << k.status().toString();
  return k.isOk() ? *k : TtirKernel{};
}

TEST(Horizontal, TwoLoopKernelsBecomeOneLaunch) {
  const TtirKernel sine = loopKernel(OpKind::Sine, f32({1000}), "fusion_0_sine");
  const TtirKernel twice = loopKernel(OpKind::Add, i32({7}), "fusion_1_add");
  StatusOr<TtirKernel> both = combineKernels({sine, twice}, "hfusion_0");
  ASSERT_TRUE(both.isOk()) << both.status().toString();
  // For compiling (and running) on a GPU machine, as emitWhole's kernels.
  if (const char* dump = std::getenv("JFT_TTIR_DUMP_DIR"); dump && *dump) {
    std::filesystem::create_directories(dump);
    std::ofstream(std::string(dump) + "/Horizontal_TwoLoopKernelsBecomeOneLaunch.ttir")
        << both->ttir;
    dumpLaunch(*both);
  }
  const Status syntax = checkTtirSyntax(both->ttir);
  EXPECT_TRUE(syntax.isOk()) << syntax.toString() << "\n" << both->ttir;
  EXPECT_EQ(both->grid, (std::array<uint32_t, 3>{sine.grid[0] + twice.grid[0], 1, 1}));
  EXPECT_EQ(both->num_warps, std::max(sine.num_warps, twice.num_warps));
  // Inputs of both, then outputs of both.
  EXPECT_EQ(both->inputs, (std::vector<ValueId>{sine.inputs[0], twice.inputs[0]}));
  EXPECT_EQ(both->outputs, (std::vector<ValueId>{sine.outputs[0], twice.outputs[0]}));
  const std::string& t = both->ttir;
  EXPECT_EQ(count(t, "tt.func private @fusion_0_sine(%hpid: i32, "), 1);
  EXPECT_EQ(count(t, "tt.func private @fusion_1_add(%hpid: i32, "), 1);
  EXPECT_EQ(count(t, "tt.func public @hfusion_0(%p0: !tt.ptr<f32>"), 1);
  EXPECT_EQ(count(t, "tt.get_program_id"), 1) << "only the wrapper reads it";
  // The sine's programs come first, then the add's, each from 0.
  at(t, "%hi0 = arith.constant " + std::to_string(sine.grid[0]) + " : i32");
  at(t, "tt.call @fusion_0_sine(%local0, %p0, %p2) : (i32, !tt.ptr<f32>, !tt.ptr<f32>)");
  at(t, "tt.call @fusion_1_add(%local1, %p1, %p3) : (i32, !tt.ptr<i32>, !tt.ptr<i32>)");
}

TEST(Horizontal, MembersThatCannotJoinAreNamed) {
  TtirKernel sine = loopKernel(OpKind::Sine, f32({1000}), "fusion_0_sine");
  TtirKernel staged = loopKernel(OpKind::Cosine, f32({10}), "fusion_1_cosine");
  staged.scratch = {64};
  EXPECT_TRUE(checkJoinable(sine).isOk());
  EXPECT_NE(checkJoinable(staged).message().find("fusion_1_cosine"), std::string::npos);
  StatusOr<TtirKernel> refused = combineKernels({sine, staged}, "hfusion_0");
  ASSERT_FALSE(refused.isOk());
  EXPECT_NE(refused.status().message().find("fusion_1_cosine"), std::string::npos);
  EXPECT_FALSE(combineKernels({sine}, "hfusion_0").isOk());
  TtirKernel wide = sine;
  wide.grid = {4, 2, 1};
  EXPECT_FALSE(combineKernels({wide, staged}, "hfusion_0").isOk());
}

}  // namespace
}  // namespace jft::codegen::ttir::testing
