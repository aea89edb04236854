// The op table against the StableHLO sources it was written from: every op
// version VhloOps.td defines (name and version range) is present, each
// maps to the ir op of the same spelling, and its required attributes are
// those the bytecode reader's independent transcription lists.
#include "frontend/vhlo/op_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "frontend/bytecode/properties.h"
#include "frontend/vhlo/op_attrs.h"
#include "ir/op_kind.h"

namespace jft::frontend::vhlo {
namespace {

struct TdOp {
  std::string_view name, since, until;
};

// Every VHLO_Op<"mnemonic", "min", "max"> of stablehlo/dialect/VhloOps.td
// at StableHLO 1.20.0.
constexpr TdOp kVhloOpsTd[] = {
    {"vhlo.abs_v1", "0.9.0", "current"},
    {"vhlo.add_v1", "0.9.0", "current"},
    {"vhlo.after_all_v1", "0.9.0", "current"},
    {"vhlo.all_gather_v1", "0.9.0", "1.4.0"},
    {"vhlo.all_gather_v2", "1.5.0", "current"},
    {"vhlo.all_reduce_v1", "0.9.0", "1.4.0"},
    {"vhlo.all_reduce_v2", "1.5.0", "current"},
    {"vhlo.all_to_all_v1", "0.9.0", "1.4.0"},
    {"vhlo.all_to_all_v2", "1.5.0", "current"},
    {"vhlo.and_v1", "0.9.0", "current"},
    {"vhlo.async_done_v1", "1.15.0", "current"},
    {"vhlo.async_start_v1", "1.15.0", "current"},
    {"vhlo.atan2_v1", "0.9.0", "current"},
    {"vhlo.batch_norm_grad_v1", "0.9.0", "current"},
    {"vhlo.batch_norm_inference_v1", "0.9.0", "current"},
    {"vhlo.batch_norm_training_v1", "0.9.0", "current"},
    {"vhlo.bitcast_convert_v1", "0.9.0", "current"},
    {"vhlo.broadcast_in_dim_v1", "0.9.0", "current"},
    {"vhlo.broadcast_v1", "0.9.0", "current"},
    {"vhlo.call_v1", "0.9.0", "current"},
    {"vhlo.case_v1", "0.9.0", "current"},
    {"vhlo.cbrt_v1", "0.9.0", "1.9.0"},
    {"vhlo.cbrt_v2", "1.10.0", "current"},
    {"vhlo.ceil_v1", "0.9.0", "current"},
    {"vhlo.cholesky_v1", "0.9.0", "current"},
    {"vhlo.clamp_v1", "0.9.0", "current"},
    {"vhlo.collective_broadcast_v1", "0.16.0", "1.19.0"},
    {"vhlo.collective_broadcast_v2", "1.20.0", "current"},
    {"vhlo.collective_permute_v1", "0.9.0", "current"},
    {"vhlo.collective_reduce_v1", "1.19.0", "current"},
    {"vhlo.compare_v1", "0.9.0", "current"},
    {"vhlo.complex_v1", "0.9.0", "current"},
    {"vhlo.composite_v1", "0.19.0", "1.13.0"},
    {"vhlo.composite_v2", "1.14.0", "current"},
    {"vhlo.concatenate_v1", "0.9.0", "current"},
    {"vhlo.constant_v1", "0.9.0", "current"},
    {"vhlo.convert_v1", "0.9.0", "current"},
    {"vhlo.convolution_v1", "0.9.0", "current"},
    {"vhlo.cosine_v1", "0.9.0", "1.9.0"},
    {"vhlo.cosine_v2", "1.10.0", "current"},
    {"vhlo.count_leading_zeros_v1", "0.9.0", "current"},
    {"vhlo.create_token_v1", "0.9.0", "current"},
    {"vhlo.cross-replica-sum_v1", "0.9.0", "current"},
    {"vhlo.custom_call_v1", "0.9.0", "1.17.0"},
    {"vhlo.custom_call_v2", "1.18.0", "current"},
    {"vhlo.divide_v1", "0.9.0", "current"},
    {"vhlo.dot_general_v1", "0.9.0", "1.5.0"},
    {"vhlo.dot_general_v2", "1.6.0", "current"},
    {"vhlo.dot_v1", "0.9.0", "current"},
    {"vhlo.dynamic_broadcast_in_dim_v1", "0.9.0", "current"},
    {"vhlo.dynamic_conv_v1", "0.9.0", "0.19.0"},
    {"vhlo.dynamic_conv_v2", "0.20.0", "current"},
    {"vhlo.dynamic_gather_v1", "0.9.0", "1.0.0"},
    {"vhlo.dynamic_gather_v2", "1.1.0", "current"},
    {"vhlo.dynamic_iota_v1", "0.9.0", "current"},
    {"vhlo.dynamic_pad_v1", "0.9.0", "current"},
    {"vhlo.dynamic_reshape_v1", "0.9.0", "current"},
    {"vhlo.dynamic_slice_v1", "0.9.0", "current"},
    {"vhlo.dynamic_update_slice_v1", "0.9.0", "current"},
    {"vhlo.einsum_v1", "0.9.0", "current"},
    {"vhlo.exponential_minus_one_v1", "0.9.0", "1.9.0"},
    {"vhlo.exponential_minus_one_v2", "1.10.0", "current"},
    {"vhlo.exponential_v1", "0.9.0", "1.8.0"},
    {"vhlo.exponential_v2", "1.9.0", "current"},
    {"vhlo.fft_v1", "0.9.0", "current"},
    {"vhlo.floor_v1", "0.9.0", "current"},
    {"vhlo.func_v1", "0.9.0", "current"},
    {"vhlo.gather_v1", "0.9.0", "1.0.0"},
    {"vhlo.gather_v2", "1.1.0", "current"},
    {"vhlo.get_dimension_size_v1", "0.9.0", "current"},
    {"vhlo.get_tuple_element_v1", "0.9.0", "current"},
    {"vhlo.if_v1", "0.9.0", "current"},
    {"vhlo.imag_v1", "0.9.0", "current"},
    {"vhlo.infeed_v1", "0.9.0", "current"},
    {"vhlo.iota_v1", "0.9.0", "current"},
    {"vhlo.is_finite_v1", "0.9.0", "current"},
    {"vhlo.log_plus_one_v1", "0.9.0", "1.9.0"},
    {"vhlo.log_plus_one_v2", "1.10.0", "current"},
    {"vhlo.log_v1", "0.9.0", "1.9.0"},
    {"vhlo.log_v2", "1.10.0", "current"},
    {"vhlo.logistic_v1", "0.9.0", "1.9.0"},
    {"vhlo.logistic_v2", "1.10.0", "current"},
    {"vhlo.map_v1", "0.9.0", "current"},
    {"vhlo.maximum_v1", "0.9.0", "current"},
    {"vhlo.minimum_v1", "0.9.0", "current"},
    {"vhlo.multiply_v1", "0.9.0", "current"},
    {"vhlo.negate_v1", "0.9.0", "current"},
    {"vhlo.not_v1", "0.9.0", "current"},
    {"vhlo.optimization_barrier_v1", "0.9.0", "current"},
    {"vhlo.or_v1", "0.9.0", "current"},
    {"vhlo.outfeed_v1", "0.9.0", "current"},
    {"vhlo.pad_v1", "0.9.0", "current"},
    {"vhlo.partition_id_v1", "0.9.0", "current"},
    {"vhlo.popcnt_v1", "0.9.0", "current"},
    {"vhlo.power_v1", "0.9.0", "current"},
    {"vhlo.real_dynamic_slice_v1", "0.9.0", "current"},
    {"vhlo.real_v1", "0.9.0", "current"},
    {"vhlo.recv_v1", "0.9.0", "1.11.0"},
    {"vhlo.recv_v2", "1.12.0", "current"},
    {"vhlo.reduce_precision_v1", "0.9.0", "current"},
    {"vhlo.reduce_scatter_v1", "0.9.0", "current"},
    {"vhlo.reduce_v1", "0.9.0", "current"},
    {"vhlo.reduce_window_v1", "0.9.0", "current"},
    {"vhlo.remainder_v1", "0.9.0", "current"},
    {"vhlo.replica_id_v1", "0.9.0", "current"},
    {"vhlo.reshape_v1", "0.9.0", "current"},
    {"vhlo.return_v1", "0.9.0", "current"},
    {"vhlo.reverse_v1", "0.9.0", "current"},
    {"vhlo.rng_bit_generator_v1", "0.9.0", "current"},
    {"vhlo.rng_v1", "0.9.0", "current"},
    {"vhlo.round_nearest_afz_v1", "0.9.0", "current"},
    {"vhlo.round_nearest_even_v1", "0.9.0", "current"},
    {"vhlo.rsqrt_v1", "0.9.0", "1.9.0"},
    {"vhlo.rsqrt_v2", "1.10.0", "current"},
    {"vhlo.scatter_v1", "0.9.0", "1.0.0"},
    {"vhlo.scatter_v2", "1.1.0", "current"},
    {"vhlo.select_and_scatter_v1", "0.9.0", "current"},
    {"vhlo.select_v1", "0.9.0", "current"},
    {"vhlo.send_v1", "0.9.0", "1.11.0"},
    {"vhlo.send_v2", "1.12.0", "current"},
    {"vhlo.set_dimension_size_v1", "0.9.0", "current"},
    {"vhlo.shift_left_v1", "0.9.0", "current"},
    {"vhlo.shift_right_arithmetic_v1", "0.9.0", "current"},
    {"vhlo.shift_right_logical_v1", "0.9.0", "current"},
    {"vhlo.sign_v1", "0.9.0", "current"},
    {"vhlo.sine_v1", "0.9.0", "1.9.0"},
    {"vhlo.sine_v2", "1.10.0", "current"},
    {"vhlo.slice_v1", "0.9.0", "current"},
    {"vhlo.sort_v1", "0.9.0", "current"},
    {"vhlo.sqrt_v1", "0.9.0", "1.9.0"},
    {"vhlo.sqrt_v2", "1.10.0", "current"},
    {"vhlo.subtract_v1", "0.9.0", "current"},
    {"vhlo.tan_v1", "1.4.0", "1.9.0"},
    {"vhlo.tan_v2", "1.10.0", "current"},
    {"vhlo.tanh_v1", "0.9.0", "1.9.0"},
    {"vhlo.tanh_v2", "1.10.0", "current"},
    {"vhlo.torch_index_select_v1", "0.9.0", "current"},
    {"vhlo.transpose_v1", "0.9.0", "current"},
    {"vhlo.triangular_solve_v1", "0.9.0", "current"},
    {"vhlo.tuple_v1", "0.9.0", "current"},
    {"vhlo.unary_einsum_v1", "0.9.0", "current"},
    {"vhlo.uniform_dequantize_v1", "0.9.0", "current"},
    {"vhlo.uniform_quantize_v1", "0.9.0", "current"},
    {"vhlo.while_v1", "0.9.0", "current"},
    {"vhlo.xor_v1", "0.9.0", "current"},
};

TEST(VhloOpTable, HoldsEveryOpVersionOfVhloOpsTd) {
  EXPECT_EQ(vhloOpTable().size(), std::size(kVhloOpsTd));
  for (const TdOp& td : kVhloOpsTd) {
    const VhloOpInfo* row = findVhloOp(td.name);
    ASSERT_NE(row, nullptr) << td.name;
    EXPECT_EQ(row->since, td.since) << td.name;
    EXPECT_EQ(row->until, td.until) << td.name;
  }
}

TEST(VhloOpTable, IsSortedWithUniqueNames) {
  const auto& table = vhloOpTable();
  for (size_t i = 1; i < table.size(); ++i) EXPECT_LT(table[i - 1].name, table[i].name);
}

TEST(VhloOpTable, EachRowBecomesTheIrOpOfTheSameSpelling) {
  for (const VhloOpInfo& row : vhloOpTable()) {
    if (!row.kind) continue;
    EXPECT_EQ(ir::opKindName(*row.kind), opFamily(row.name)) << row.name;
  }
}

TEST(VhloOpTable, OnlyOpsWithoutAnIrCounterpartLackAKind) {
  std::set<std::string_view> without;
  for (const VhloOpInfo& row : vhloOpTable())
    if (!row.kind) without.insert(row.name);
  EXPECT_EQ(without,
            (std::set<std::string_view>{"vhlo.async_done_v1", "vhlo.async_start_v1",
                                        "vhlo.collective_reduce_v1", "vhlo.func_v1"}));
}

TEST(VhloOpTable, RequiredAttributesMatchTheReadersPropertyNames) {
  for (const VhloOpInfo& row : vhloOpTable()) {
    std::vector<std::string_view> mine = row.attrs;
    std::sort(mine.begin(), mine.end());
    const auto* theirs = bytecode::vhloOpAttributeNames(row.name);
    std::vector<std::string_view> expected;
    if (theirs) expected = *theirs;
    EXPECT_EQ(mine, expected) << row.name;
  }
}

TEST(VhloOpTable, UnknownNamesAndNewerVersionsAreAbsent) {
  EXPECT_EQ(findVhloOp("vhlo.add_v2"), nullptr);
  EXPECT_EQ(findVhloOp("vhlo.dot_general_v3"), nullptr);
  EXPECT_EQ(findVhloOp("stablehlo.add"), nullptr);
  EXPECT_EQ(findVhloOp(""), nullptr);
  EXPECT_NE(findVhloOp("vhlo.add_v1"), nullptr);
}

TEST(VhloOpTable, FamilyStripsDialectAndVersion) {
  EXPECT_EQ(opFamily("vhlo.dot_general_v2"), "dot_general");
  EXPECT_EQ(opFamily("vhlo.cross-replica-sum_v1"), "cross-replica-sum");
  EXPECT_EQ(opFamily("vhlo.exponential_minus_one_v2"), "exponential_minus_one");
}

}  // namespace
}  // namespace jft::frontend::vhlo
