// gather and scatter rules of the StableHLO spec, on the zoo's
// gather_scatter shapes (a 100x16 table indexed by 32 row numbers).
#include "verifier_test_util.h"

namespace jft::ir {
namespace {

using namespace jft::ir::testing;
using Ints = std::vector<int64_t>;

GatherDimensionNumbers rowGather() {
  GatherDimensionNumbers dn;
  dn.offset_dims = {1};
  dn.collapsed_slice_dims = {0};
  dn.start_index_map = {0};
  dn.index_vector_dim = 1;
  return dn;
}

BodyFn gather(GatherDimensionNumbers dn, Ints slice_sizes, Type out) {
  return oneOp(OpKind::Gather, out,
               {{"dimension_numbers", dn},
                {"slice_sizes", slice_sizes},
                {"indices_are_sorted", false}});
}

TEST(VerifyGather, RowGather) {
  EXPECT_VALID(verifyMain({f32({100, 16}), i32({32, 1})},
                          gather(rowGather(), {1, 16}, f32({32, 16}))));
}

TEST(VerifyGather, ResultShapeCombinesBatchAndOffsetDims) {
  EXPECT_INVALID(
      verifyMain({f32({100, 16}), i32({32, 1})},
                 gather(rowGather(), {1, 8}, f32({32, 16}))),
      "stablehlo.gather at zoo.py:17:20: result shape [32, 16] should be [32, 8]");
}

TEST(VerifyGather, CollapsedDimsHaveSliceSizeOne) {
  GatherDimensionNumbers dn = rowGather();
  EXPECT_INVALID(
      verifyMain({f32({100, 16}), i32({32, 1})}, gather(dn, {2, 16}, f32({32, 16}))),
      "slice size of collapsed or batching dimension 0 must be at most 1, got 2");
}

TEST(VerifyGather, IndexVectorSizeMatchesStartIndexMap) {
  EXPECT_INVALID(verifyMain({f32({100, 16}), i32({32, 2})},
                            gather(rowGather(), {1, 16}, f32({32, 16}))),
                 "start_index_map [0] must have 2 entries (the index vector size)");
}

TEST(VerifyGather, DimensionNumbersInRange) {
  GatherDimensionNumbers dn = rowGather();
  dn.offset_dims = {2};
  EXPECT_INVALID(
      verifyMain({f32({100, 16}), i32({32, 1})}, gather(dn, {1, 16}, f32({32, 16}))),
      "offset_dims [2] has 2 outside [0, 2)");
  dn = rowGather();
  dn.index_vector_dim = 3;
  EXPECT_INVALID(
      verifyMain({f32({100, 16}), i32({32, 1})}, gather(dn, {1, 16}, f32({32, 16}))),
      "index_vector_dim 3 outside [0, 2]");
}

ScatterDimensionNumbers rowScatter() {
  ScatterDimensionNumbers dn;
  dn.update_window_dims = {1};
  dn.inserted_window_dims = {0};
  dn.scatter_dims_to_operand_dims = {0};
  dn.index_vector_dim = 1;
  return dn;
}

BodyFn scatter(ScatterDimensionNumbers dn, Type out, std::vector<Type> body_args) {
  return [=](Builder& b, const std::vector<ValueId>& args) -> std::vector<ValueId> {
    Region body = combiner(b, body_args, OpKind::Add);
    return {b.op1(OpKind::Scatter, args, out, {{"scatter_dimension_numbers", dn}},
                  {std::move(body)})};
  };
}

TEST(VerifyScatter, RowScatterAdd) {
  EXPECT_VALID(verifyMain({f32({100, 16}), i32({32, 1}), f32({32, 16})},
                          scatter(rowScatter(), f32({100, 16}), {f32(), f32()})));
}

TEST(VerifyScatter, UpdatesFollowTheIndices) {
  EXPECT_INVALID(verifyMain({f32({100, 16}), i32({32, 1}), f32({31, 16})},
                            scatter(rowScatter(), f32({100, 16}), {f32(), f32()})),
                 "stablehlo.scatter at zoo.py:17:20: update scatter dimension 0 of "
                 "tensor<31x16xf32> does not match the indices tensor<32x1xi32>");
  EXPECT_INVALID(verifyMain({f32({100, 16}), i32({32, 1}), f32({32, 17})},
                            scatter(rowScatter(), f32({100, 16}), {f32(), f32()})),
                 "update window dimension 1 of tensor<32x17xf32> exceeds the input's");
}

TEST(VerifyScatter, BodyTakesTwoScalarsPerInput) {
  EXPECT_INVALID(
      verifyMain({f32({100, 16}), i32({32, 1}), f32({32, 16})},
                 scatter(rowScatter(), f32({100, 16}), {f32(), f32(), f32(), f32()})),
      "body must take 2 arguments, got 4");
  EXPECT_INVALID(verifyMain({f32({100, 16}), i32({32, 1}), f32({32, 16})},
                            scatter(rowScatter(), f32({100, 16}), {f32({1}), f32({1})})),
                 "body arguments #0 and #1 must be the same 0-d tensor type");
}

TEST(VerifyScatter, ResultsHaveTheInputShape) {
  EXPECT_INVALID(verifyMain({f32({100, 16}), i32({32, 1}), f32({32, 16})},
                            scatter(rowScatter(), f32({16, 100}), {f32(), f32()})),
                 "result #0 tensor<16x100xf32> should be tensor<100x16xf32>");
}

TEST(VerifyScatter, InsertedWindowDimsInRange) {
  ScatterDimensionNumbers dn = rowScatter();
  dn.inserted_window_dims = {5};
  EXPECT_INVALID(verifyMain({f32({100, 16}), i32({32, 1}), f32({32, 16})},
                            scatter(dn, f32({100, 16}), {f32(), f32()})),
                 "inserted_window_dims [5] has 5 outside [0, 2)");
}

}  // namespace
}  // namespace jft::ir
