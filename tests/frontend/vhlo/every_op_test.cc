// Every row of the op table, end to end: a one-op program built from the
// attribute forms VhloOps.td and the StableHLO legalization tests give each
// attribute name imports to the row's ir op; rows without an ir op are
// rejected by name.
#include <gtest/gtest.h>

#include <map>

#include "frontend/vhlo/import.h"
#include "frontend/vhlo/op_table.h"
#include "import_test_util.h"
#include "tree_builder.h"

namespace jft::frontend::vhlo_test {
namespace {

using vhlo::Count;
using vhlo::VhloOpInfo;
using vhlo::vhloOpTable;

MTypePtr scalarF32() {
  return tensor({}, f32());
}

// A well-formed VHLO value for each attribute name VhloOps.td uses.
MAttrPtr sampleAttr(std::string_view name) {
  static const MAttrPtr none = typeAttr(noneType());
  static const std::map<std::string_view, MAttrPtr> samples = {
      {"accumulation_type", none},
      {"all_gather_dim", intAttr(0)},
      {"allow_imprecise_accumulation", none},
      {"api_version", enumAttr("vhlo.api_version_v1", 1)},
      {"backend_config", stringAttr("")},
      {"base_dilations", i64s({1})},
      {"batch_dims", intAttr(0)},
      {"batch_group_count", intAttr(1)},
      {"broadcast_dimensions", i64s({})},
      {"broadcast_sizes", i64s({2})},
      {"call_target_name", stringAttr("foo")},
      {"called_computations", arrayAttr({})},
      {"callee", stringAttr("main")},
      {"channel_id", intAttr(0)},
      {"channel_type", intAttr(1)},
      {"collapsed_slice_dims", i64s({0})},
      {"compare_type", enumAttr("vhlo.comparison_type_v1", 0)},
      {"comparison_direction", enumAttr("vhlo.comparison_direction_v1", 0)},
      {"composite_attributes", dictAttr({})},
      {"concat_dimension", intAttr(0)},
      {"decomposition", stringAttr("main")},
      {"dim", intAttr(0)},
      {"dimension", intAttr(0)},
      {"dimensions", i64s({0})},
      {"edge_padding_high", i64s({0})},
      {"edge_padding_low", i64s({0})},
      {"einsum_config", stringAttr("a->a")},
      {"epsilon", floatAttr(1e-3)},
      {"exponent_bits", intAttr(5)},
      {"feature_group_count", intAttr(1)},
      {"feature_index", intAttr(0)},
      {"fft_length", i64s({1})},
      {"fft_type", enumAttr("vhlo.fft_type_v1", 0)},
      {"has_dynamic_root", boolAttr(false)},
      {"has_side_effect", boolAttr(false)},
      {"index", intAttr(0)},
      {"index_vector_dim", intAttr(1)},
      {"indices_are_sorted", boolAttr(false)},
      {"infeed_config", stringAttr("")},
      {"input_batch_dimension", intAttr(0)},
      {"input_batching_dims", i64s({})},
      {"input_feature_dimension", intAttr(1)},
      {"input_spatial_dimensions", i64s({2})},
      {"inserted_window_dims", i64s({0})},
      {"interior_padding", i64s({0})},
      {"iota_dimension", intAttr(0)},
      {"is_host_transfer", boolAttr(false)},
      {"is_stable", boolAttr(false)},
      {"kernel_input_feature_dimension", intAttr(1)},
      {"kernel_output_feature_dimension", intAttr(0)},
      {"kernel_spatial_dimensions", i64s({2})},
      {"known_expanding_dimensions", i64s({})},
      {"known_nonexpanding_dimensions", i64s({})},
      {"layout", arrayAttr({})},
      {"left_side", boolAttr(true)},
      {"lhs_batching_dimensions", i64s({})},
      {"lhs_component_count", none},
      {"lhs_contracting_dimensions", i64s({0})},
      {"lhs_dilation", i64s({1})},
      {"lhs_precision_type", none},
      {"limit_indices", i64s({1})},
      {"lower", boolAttr(false)},
      {"mantissa_bits", intAttr(10)},
      {"name", stringAttr("my.composite")},
      {"num_primitive_operations", none},
      {"offset_dims", i64s({})},
      {"operand_batching_dims", i64s({})},
      {"operand_layouts", arrayAttr({})},
      {"outfeed_config", stringAttr("")},
      {"output_batch_dimension", intAttr(0)},
      {"output_feature_dimension", intAttr(1)},
      {"output_operand_aliases", arrayAttr({})},
      {"output_spatial_dimensions", i64s({2})},
      {"padding", i64Matrix(1, 2, {0, 0})},
      {"permutation", i64s({0})},
      {"precision_config", precisions({0, 0})},
      {"replica_groups", i64Matrix(1, 1, {0})},
      {"result_accuracy",
       structAttr("vhlo.result_accuracy_v1",
                  {{"atol", floatAttr(0)},
                   {"rtol", floatAttr(0)},
                   {"ulps", intAttr(0)},
                   {"mode", enumAttr("vhlo.result_accuracy_mode_v1", 0)}})},
      {"result_layouts", arrayAttr({})},
      {"result_tilings", arrayAttr({})},
      {"rhs_batching_dimensions", i64s({})},
      {"rhs_component_count", none},
      {"rhs_contracting_dimensions", i64s({0})},
      {"rhs_dilation", i64s({1})},
      {"rhs_precision_type", none},
      {"rng_algorithm", enumAttr("vhlo.rng_algorithm_v1", 0)},
      {"rng_distribution", enumAttr("vhlo.rng_distribution_v1", 1)},
      {"scatter_dimension", intAttr(0)},
      {"scatter_dims_to_operand_dims", i64s({0})},
      {"scatter_indices_batching_dims", i64s({})},
      {"slice_sizes", i64s({1})},
      {"source_target_pairs", i64Matrix(1, 2, {0, 0})},
      {"split_count", intAttr(1)},
      {"split_dimension", intAttr(0)},
      {"start_index_map", i64s({0})},
      {"start_indices", i64s({0})},
      {"start_indices_batching_dims", i64s({})},
      {"strides", i64s({1})},
      {"transpose_a", enumAttr("vhlo.transpose_v1", 1)},
      {"unique_indices", boolAttr(false)},
      {"unit_diagonal", boolAttr(false)},
      {"update_window_dims", i64s({})},
      {"use_global_device_ids", boolAttr(false)},
      {"value", denseRaw(scalarF32(), {0, 0, 0, 0})},
      {"version", intAttr(0)},
      {"window_dilations", i64s({1})},
      {"window_dimensions", i64s({1})},
      {"window_reversal", denseRaw(tensor({1}, intType(1)), {0})},
      {"window_strides", i64s({1})},
  };
  auto it = samples.find(name);
  return it == samples.end() ? nullptr : it->second;
}

int atLeastOne(Count c) {
  return c.min > 0 ? c.min : 1;
}

// main(x: f32[]) { <the row's op over x>; return }
StatusOr<ir::Module> importRow(const VhloOpInfo& row) {
  TreeBuilder b;
  MOp f = b.func("main", {scalarF32()}, {}, [&](const std::vector<uint32_t>& args) {
    std::vector<uint32_t> operands(static_cast<size_t>(row.operands.min), args[0]);
    std::vector<MTypePtr> results(
        static_cast<size_t>(row.results.max == 0 ? 0 : atLeastOne(row.results)),
        scalarF32());
    std::vector<std::pair<std::string, MAttrPtr>> attrs;
    for (std::string_view name : row.attrs) attrs.emplace_back(name, sampleAttr(name));
    std::vector<MOp> ops;
    ops.push_back(b.op(std::string(row.name), operands, results, attrs));
    for (int i = 0; i < row.regions.min; ++i)
      ops.back().regions.push_back(b.region({}, [&](const std::vector<uint32_t>&) {
        std::vector<MOp> body;
        body.push_back(b.ret({}));
        return body;
      }));
    ops.push_back(b.ret({}));
    return ops;
  });
  std::vector<MOp> fns;
  fns.push_back(std::move(f));
  return importTree(b.module(std::move(fns)));
}

TEST(EveryOp, SamplesCoverEveryAttributeName) {
  for (const VhloOpInfo& row : vhloOpTable()) {
    if (row.name == "vhlo.func_v1") continue;
    for (std::string_view name : row.attrs) EXPECT_NE(sampleAttr(name), nullptr) << name;
  }
}

TEST(EveryOp, EachRowImportsToItsIrOp) {
  int imported = 0;
  for (const VhloOpInfo& row : vhloOpTable()) {
    if (row.name == "vhlo.func_v1" || row.name == "vhlo.return_v1") continue;
    auto m = importRow(row);
    if (!row.kind) {
      EXPECT_EQ(m.status().code(), StatusCode::kUnimplemented) << row.name;
      EXPECT_EQ(m.status().message(),
                std::string(row.name) + " is not supported (at unknown location)");
      continue;
    }
    ASSERT_TRUE(m.isOk()) << row.name << ": " << m.status().toString();
    const ir::Op& op = m->functions[0].body.ops[0];
    EXPECT_EQ(op.kind, *row.kind) << row.name;
    EXPECT_EQ(op.regions.size(), static_cast<size_t>(row.regions.min)) << row.name;
    ++imported;
  }
  // 145 op versions in VhloOps.td, less func_v1, return_v1 and the three
  // without an ir op (async_start, async_done, collective_reduce).
  EXPECT_EQ(imported, 140);
}

}  // namespace
}  // namespace jft::frontend::vhlo_test
