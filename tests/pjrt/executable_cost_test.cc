// Cost analysis: the compiler's flops and transcendentals of hand-built
// programs against counts worked out by hand (2*M*N*K for a matmul), the
// bytes the loaded program touches, and GetCostAnalysis's answer (XLA's
// property names, floats) surviving serialization.
#include "pjrt/executable_cost.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "compiler/cost_analysis.h"
#include "executable_test_support.h"
#include "ir/builder.h"
#include "pjrt/entry_points.h"
#include "pjrt/executable_blob.h"

namespace jft::pjrt::testing {
namespace {

using ir::OpKind;

ir::Type f32(std::vector<int64_t> dims) {
  return ir::Type::tensor(ir::ElementType::F32, std::move(dims));
}

TEST(ProgramCost, MatmulIsTwoMNKAndElementwiseOnePerElement) {
  ir::Module module;
  ir::Builder b(module);
  auto args = b.beginFunction("main", {f32({3, 5}), f32({5, 7})}, {f32({3, 7})});
  ir::ValueId product =
      b.op1(OpKind::DotGeneral, {args[0], args[1]}, f32({3, 7}),
            {{"dot_dimension_numbers", ir::DotDimensionNumbers{{}, {}, {1}, {0}}}});
  ir::ValueId e = b.op1(OpKind::Exponential, {product}, f32({3, 7}));
  ir::ValueId sum = b.op1(OpKind::Add, {e, product}, f32({3, 7}));
  ir::ValueId shaped = b.op1(OpKind::Reshape, {sum}, f32({21}));  // free
  (void)shaped;
  b.ret({sum});
  const ir::Function& main = b.endFunction();
  compiler::ProgramCost cost = compiler::programCost(module, main);
  EXPECT_EQ(cost.flops, 2.0 * 3 * 7 * 5 + 3 * 7);
  EXPECT_EQ(cost.transcendentals, 3.0 * 7);
}

TEST(ProgramCost, BatchedDotConvolutionAndReduce) {
  ir::Module module;
  ir::Builder b(module);
  auto args = b.beginFunction("main",
                              {f32({2, 3, 5}), f32({2, 5, 7}), f32({1, 8, 8, 3}),
                               f32({3, 3, 3, 16}), f32({4, 6}), f32({})},
                              {});
  b.op1(OpKind::DotGeneral, {args[0], args[1]}, f32({2, 3, 7}),
        {{"dot_dimension_numbers", ir::DotDimensionNumbers{{0}, {0}, {2}, {1}}}});
  ir::ConvDimensionNumbers nhwc;
  nhwc.input_batch_dim = 0;
  nhwc.input_spatial_dims = {1, 2};
  nhwc.input_feature_dim = 3;
  nhwc.kernel_spatial_dims = {0, 1};
  nhwc.kernel_input_feature_dim = 2;
  nhwc.kernel_output_feature_dim = 3;
  nhwc.output_batch_dim = 0;
  nhwc.output_spatial_dims = {1, 2};
  nhwc.output_feature_dim = 3;
  b.op1(OpKind::Convolution, {args[2], args[3]}, f32({1, 6, 6, 16}),
        {{"dimension_numbers", nhwc}});
  b.op1(OpKind::Reduce, {args[4], args[5]}, f32({4}));
  b.ret({});
  const ir::Function& main = b.endFunction();
  compiler::ProgramCost cost = compiler::programCost(module, main);
  const double dot = 2.0 * 2 * 3 * 7 * 5;
  const double conv = 2.0 * (6 * 6 * 16) * (3 * 3 * 3);
  const double reduce = 24 - 4;
  EXPECT_EQ(cost.flops, dot + conv + reduce);
  EXPECT_EQ(cost.transcendentals, 0);
}

runtime::Program slotsOf(std::vector<uint64_t> bytes) {
  runtime::Program program;
  for (uint64_t b : bytes) {
    runtime::BufferSlot slot;
    slot.bytes = b;
    program.slots.push_back(slot);
  }
  return program;
}

TEST(BytesAccessed, CountsEveryThunksBuffersAndNestedListsOnce) {
  runtime::Program program = slotsOf({16, 32, 64});
  program.thunks.push_back(runtime::LaunchThunk{0, {1, 1, 1}, {0, 1}});  // 48
  runtime::CopyThunk copy;
  copy.source = 0;
  copy.destination = 1;
  copy.bytes = 8;
  program.thunks.push_back(copy);  // 16: read and written
  runtime::GemmThunk gemm;
  gemm.a = 0;
  gemm.b = 1;
  gemm.d = 2;
  program.thunks.push_back(gemm);                                      // 112
  program.lists.push_back({runtime::LaunchThunk{0, {1, 1, 1}, {2}}});  // 64
  runtime::WhileThunk loop;
  loop.body = 0;
  loop.trip_count = 10;
  program.thunks.push_back(loop);
  EXPECT_EQ(bytesAccessed(program), 48u + 16u + 112u + 64u);
}

std::map<std::string, PJRT_NamedValue> byName(const PJRT_NamedValue* values, size_t n) {
  std::map<std::string, PJRT_NamedValue> out;
  for (size_t i = 0; i < n; ++i)
    out[std::string(values[i].name, values[i].name_size)] = values[i];
  return out;
}

class CostAnalysisTest : public ExecutableTest {};

TEST_F(CostAnalysisTest, AnswersXlaPropertyNamesAsFloatsAndSurvivesSerialization) {
  compiler::Executable compiled = doublingExecutable(1, {-1});
  compiled.cost.flops = 2.0 * 64 * 64 * 64;
  compiled.cost.transcendentals = 12;
  // One launch reading the parameter (16 bytes) and writing the output (16).
  compiled.program.thunks.push_back(runtime::LaunchThunk{0, {1, 1, 1}, {0, 1}});
  compiled.program.kernels[0].name = "double_kernel";
  compiled.program.kernels[0].params = {runtime::KernelImage::Param::kBuffer,
                                        runtime::KernelImage::Param::kBuffer};
  PJRT_LoadedExecutable* loaded = load(std::move(compiled));
  ASSERT_NE(loaded, nullptr);
  PJRT_Executable view{loaded->info};
  PJRT_Executable_GetCostAnalysis_Args args{};
  args.struct_size = sizeof(args);
  args.executable = &view;
  ASSERT_EQ(executableGetCostAnalysis(&args), nullptr);
  auto properties = byName(args.properties, args.num_properties);
  ASSERT_EQ(properties.size(), 3u);
  for (const auto& [name, value] : properties) {
    SCOPED_TRACE(name);
    EXPECT_EQ(value.type, PJRT_NamedValue_kFloat);
    EXPECT_EQ(value.value_size, 1u);
  }
  EXPECT_EQ(properties["flops"].float_value, 524288.0f);
  EXPECT_EQ(properties["transcendentals"].float_value, 12.0f);
  EXPECT_EQ(properties["bytes accessed"].float_value, 32.0f);

  const ExecutableInfo& info = *loaded->info;
  auto back = deserializeExecutable(serializeExecutable(info, "build"), "build", "");
  ASSERT_TRUE(back.isOk()) << back.status().toString();
  EXPECT_EQ((*back)->flops, info.flops);
  EXPECT_EQ((*back)->transcendentals, 12);
  auto again = byName((*back)->cost_properties->data(), (*back)->cost_properties->size());
  EXPECT_EQ(again["bytes accessed"].float_value, 32.0f);
}

}  // namespace
}  // namespace jft::pjrt::testing
