// combineHorizontally on hand-made bodies: two small loop kernels with one
// other group between them. The run passes over device work that reads none
// of its outputs (the combined launch then sits at the second member); it
// ends at a group that reads a member's output, and at control flow, custom
// calls and collectives.
#include "compiler/horizontal_batches.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "codegen/ttir/kernel.h"
#include "compiler/ir_shorthands.h"
#include "ir/builder.h"

namespace jft::compiler {
namespace {

using ir::OpKind;
using ir::ValueId;
using testing::f32;

// A real loop kernel (sine of f32[n]) standing for a group reading `in` and
// writing `out`.
codegen::ttir::TtirKernel sineKernel(int64_t n, const std::string& name, ValueId in,
                                     ValueId out) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({n})}, {f32({n})});
  b.ret({b.op1(OpKind::Sine, {a[0]}, f32({n}))});
  b.endFunction();
  fusion::Fusion whole;
  whole.name = name;
  whole.family = fusion::Family::kLoop;
  whole.ops = {0};
  whole.inputs = {a[0]};
  whole.outputs = {m.entry()->body.ops[0].results[0]};
  StatusOr<codegen::ttir::TtirKernel> k = codegen::ttir::emitKernel(m, *m.entry(), whole);
  EXPECT_TRUE(k.isOk()) << k.status().toString();
  codegen::ttir::TtirKernel kernel = k.isOk() ? *k : codegen::ttir::TtirKernel{};
  kernel.inputs = {in};
  kernel.outputs = {out};
  return kernel;
}

fusion::Fusion group(fusion::Route route, std::vector<ValueId> inputs,
                     std::vector<ValueId> outputs) {
  fusion::Fusion g;
  g.route = route;
  g.family =
      route == fusion::Route::kTtir ? fusion::Family::kLoop : fusion::Family::kNone;
  g.inputs = std::move(inputs);
  g.outputs = std::move(outputs);
  return g;
}

// Members read 1 and 3 and write 2 and 4; the group between them reads
// `between_reads` and writes 6.
RegionCode body(fusion::Route between, std::vector<ValueId> between_reads) {
  RegionCode code;
  code.plan.fusions = {group(fusion::Route::kTtir, {1}, {2}),
                       group(between, std::move(between_reads), {6}),
                       group(fusion::Route::kTtir, {3}, {4})};
  code.groups.resize(3);
  code.groups[0].kernels = {sineKernel(100, "fusion_0_loop_sine", 1, 2)};
  code.groups[2].kernels = {sineKernel(7, "fusion_2_loop_sine", 3, 4)};
  if (between == fusion::Route::kTtir) {
    // Too large to join: 2^22 elements.
    code.groups[1].kernels = {sineKernel(int64_t{1} << 22, "fusion_1_loop_sine", 5, 6)};
  } else {
    code.groups[1].call = codegen::Call{};
  }
  return code;
}

const ir::Function kScope;

TEST(HorizontalBatches, TheRunPassesOverWorkThatReadsNoneOfItsOutputs) {
  for (fusion::Route between :
       {fusion::Route::kTtir, fusion::Route::kLibrary, fusion::Route::kCopy}) {
    RegionCode code = body(between, {5});
    // The members ask for different warp counts; the launch takes the most.
    const int warps = std::max(code.groups[0].kernels[0].num_warps,
                               code.groups[2].kernels[0].num_warps);
    ASSERT_NE(code.groups[0].kernels[0].num_warps, code.groups[2].kernels[0].num_warps);
    ASSERT_TRUE(combineHorizontally(kScope, code).isOk());
    const std::string name = "hfusion_fusion_0_loop_sine";
    EXPECT_TRUE(code.groups[0].kernels.empty());
    EXPECT_EQ(code.groups[0].joined, name);
    EXPECT_TRUE(code.groups[1].joined.empty());
    ASSERT_EQ(code.groups[2].kernels.size(), 1u);
    const codegen::ttir::TtirKernel& combined = code.groups[2].kernels[0];
    EXPECT_EQ(combined.name, name);
    EXPECT_EQ(combined.inputs, (std::vector<ValueId>{1, 3}));
    EXPECT_EQ(combined.outputs, (std::vector<ValueId>{2, 4}));
    EXPECT_EQ(combined.num_warps, warps);
  }
}

TEST(HorizontalBatches, AGroupReadingAMembersOutputEndsTheRun) {
  RegionCode code = body(fusion::Route::kLibrary, {2});
  ASSERT_TRUE(combineHorizontally(kScope, code).isOk());
  EXPECT_EQ(code.groups[0].kernels.size(), 1u);
  EXPECT_EQ(code.groups[2].kernels[0].name, "fusion_2_loop_sine");
  for (const codegen::GroupCode& made : code.groups) EXPECT_TRUE(made.joined.empty());
}

TEST(HorizontalBatches, ControlFlowCallbacksAndCollectivesEndTheRun) {
  for (fusion::Route between : {fusion::Route::kControl, fusion::Route::kCustomCall,
                                fusion::Route::kCollective}) {
    RegionCode code = body(between, {5});
    ASSERT_TRUE(combineHorizontally(kScope, code).isOk());
    EXPECT_EQ(code.groups[0].kernels.size(), 1u) << fusion::routeName(between);
    EXPECT_TRUE(code.groups[0].joined.empty()) << fusion::routeName(between);
  }
}

TEST(HorizontalBatches, AMemberReadingAnEarlierMembersOutputStartsANewRun) {
  RegionCode code = body(fusion::Route::kLibrary, {5});
  code.plan.fusions[2].inputs = {2};
  ASSERT_TRUE(combineHorizontally(kScope, code).isOk());
  EXPECT_EQ(code.groups[0].kernels.size(), 1u);
  EXPECT_EQ(code.groups[2].kernels[0].name, "fusion_2_loop_sine");
}

TEST(HorizontalBatches, AKernelItCannotTakeApartStaysALaunchOfItsOwn) {
  RegionCode code = body(fusion::Route::kLibrary, {5});
  // Reads its program id twice: combineKernels would refuse it.
  std::string& text = code.groups[2].kernels[0].ttir;
  const std::string pid = "tt.get_program_id x : i32\n";
  const size_t at = text.find(pid);
  ASSERT_NE(at, std::string::npos);
  text.insert(at + pid.size(), "    %again = " + pid);
  ASSERT_TRUE(combineHorizontally(kScope, code).isOk());
  EXPECT_EQ(code.groups[0].kernels[0].name, "fusion_0_loop_sine");
  EXPECT_EQ(code.groups[2].kernels[0].name, "fusion_2_loop_sine");
}

TEST(HorizontalBatches, ABodyNotYetLoweredIsAnInternalError) {
  RegionCode code = body(fusion::Route::kLibrary, {5});
  code.groups.pop_back();
  EXPECT_EQ(combineHorizontally(kScope, code).code(), StatusCode::kInternal);
}

}  // namespace
}  // namespace jft::compiler
