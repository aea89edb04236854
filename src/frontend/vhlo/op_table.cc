#include "frontend/vhlo/op_table.h"

#include <algorithm>

namespace jft::frontend::vhlo {
namespace {

using ir::OpKind;

constexpr Count n(int count) {
  return Count{count, count};
}
constexpr Count atLeast(int count) {
  return Count{count, Count::kUnbounded};
}

constexpr Count kNone = n(0);
constexpr Count kOne = n(1);
constexpr Count kAny = atLeast(0);

// Operands/results of the elementwise families.
VhloOpInfo unary(std::string_view name, OpKind kind, std::string_view since = "0.9.0",
                 std::string_view until = "current") {
  return {name, kind, since, until, kOne, kOne, kNone, {}};
}
VhloOpInfo binary(std::string_view name, OpKind kind) {
  return {name, kind, "0.9.0", "current", n(2), kOne, kNone, {}};
}
// A row whose op version exists in every StableHLO we read (0.9.0 on).
VhloOpInfo op(std::string_view name, std::optional<OpKind> kind, Count operands,
              Count results, Count regions, std::vector<std::string_view> attrs = {}) {
  return {name, kind, "0.9.0", "current", operands, results, regions, std::move(attrs)};
}
// A row whose op version came later or has gone: the fields in their order.
VhloOpInfo versioned(std::string_view name, std::optional<OpKind> kind,
                     std::string_view since, std::string_view until, Count operands,
                     Count results, Count regions,
                     std::vector<std::string_view> attrs = {},
                     OperandShape operand_shape = OperandShape::Plain) {
  return {name,         kind, since, until, operands, results, regions, std::move(attrs),
          operand_shape};
}
// Transcendental ops gained result_accuracy in 1.10.0 (exponential in 1.9.0).
VhloOpInfo withAccuracy(std::string_view name, OpKind kind,
                        std::string_view since = "1.10.0") {
  return {name, kind, since, "current", kOne, kOne, kNone, {"result_accuracy"}};
}

const std::vector<std::string_view> kConvAttrs = {"window_strides",
                                                  "lhs_dilation",
                                                  "rhs_dilation",
                                                  "window_reversal",
                                                  "input_batch_dimension",
                                                  "input_feature_dimension",
                                                  "input_spatial_dimensions",
                                                  "kernel_input_feature_dimension",
                                                  "kernel_output_feature_dimension",
                                                  "kernel_spatial_dimensions",
                                                  "output_batch_dimension",
                                                  "output_feature_dimension",
                                                  "output_spatial_dimensions",
                                                  "feature_group_count",
                                                  "batch_group_count",
                                                  "precision_config"};

std::vector<std::string_view> plus(std::vector<std::string_view> base,
                                   std::initializer_list<std::string_view> more) {
  base.insert(base.end(), more);
  return base;
}

const std::vector<std::string_view> kDotAttrs = {
    "lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions",
    "rhs_contracting_dimensions", "precision_config"};
const std::vector<std::string_view> kGatherV1Attrs = {
    "offset_dims", "collapsed_slice_dims", "start_index_map", "index_vector_dim",
    "indices_are_sorted"};
const std::vector<std::string_view> kScatterV1Attrs = {
    "update_window_dims", "inserted_window_dims", "scatter_dims_to_operand_dims",
    "index_vector_dim",   "indices_are_sorted",   "unique_indices"};
const std::vector<std::string_view> kCustomCallV1Attrs = {
    "call_target_name",    "has_side_effect", "backend_config", "api_version",
    "called_computations", "operand_layouts", "result_layouts", "output_operand_aliases"};
const std::vector<std::string_view> kCompositeAttrs = {"name", "composite_attributes",
                                                       "decomposition", "version"};

std::vector<VhloOpInfo> buildTable() {
  const auto kPairs = OperandShape::PairedInputsAndInits;
  std::vector<VhloOpInfo> t = {
      unary("vhlo.abs_v1", OpKind::Abs),
      binary("vhlo.add_v1", OpKind::Add),
      op("vhlo.after_all_v1", OpKind::AfterAll, kAny, kOne, kNone),
      versioned(
          "vhlo.all_gather_v1", OpKind::AllGather, "0.9.0", "1.4.0", kOne, kOne, kNone,
          {"all_gather_dim", "replica_groups", "channel_id", "use_global_device_ids"}),
      versioned(
          "vhlo.all_gather_v2", OpKind::AllGather, "1.5.0", "current", kAny, kAny, kNone,
          {"all_gather_dim", "replica_groups", "channel_id", "use_global_device_ids"}),
      versioned("vhlo.all_reduce_v1", OpKind::AllReduce, "0.9.0", "1.4.0", kOne, kOne,
                kOne, {"replica_groups", "channel_id", "use_global_device_ids"}),
      versioned("vhlo.all_reduce_v2", OpKind::AllReduce, "1.5.0", "current", kAny, kAny,
                kOne, {"replica_groups", "channel_id", "use_global_device_ids"}),
      versioned("vhlo.all_to_all_v1", OpKind::AllToAll, "0.9.0", "1.4.0", kOne, kOne,
                kNone,
                {"split_dimension", "concat_dimension", "split_count", "replica_groups",
                 "channel_id"}),
      versioned("vhlo.all_to_all_v2", OpKind::AllToAll, "1.5.0", "current", kAny, kAny,
                kNone,
                {"split_dimension", "concat_dimension", "split_count", "replica_groups",
                 "channel_id"}),
      binary("vhlo.and_v1", OpKind::And),
      // Asynchronous collectives (futures) have no ir form yet.
      versioned("vhlo.async_done_v1", std::nullopt, "1.15.0", "current", kOne, kOne,
                kNone),
      versioned("vhlo.async_start_v1", std::nullopt, "1.15.0", "current", kAny, kOne,
                kOne),
      binary("vhlo.atan2_v1", OpKind::Atan2),
      op("vhlo.batch_norm_grad_v1", OpKind::BatchNormGrad, n(5), n(3), kNone,
         {"epsilon", "feature_index"}),
      op("vhlo.batch_norm_inference_v1", OpKind::BatchNormInference, n(5), kOne, kNone,
         {"epsilon", "feature_index"}),
      op("vhlo.batch_norm_training_v1", OpKind::BatchNormTraining, n(3), n(3), kNone,
         {"epsilon", "feature_index"}),
      unary("vhlo.bitcast_convert_v1", OpKind::BitcastConvert),
      op("vhlo.broadcast_in_dim_v1", OpKind::BroadcastInDim, kOne, kOne, kNone,
         {"broadcast_dimensions"}),
      op("vhlo.broadcast_v1", OpKind::Broadcast, kOne, kOne, kNone, {"broadcast_sizes"}),
      op("vhlo.call_v1", OpKind::Call, kAny, kAny, kNone, {"callee"}),
      op("vhlo.case_v1", OpKind::Case, kOne, kAny, atLeast(1)),
      unary("vhlo.cbrt_v1", OpKind::Cbrt, "0.9.0", "1.9.0"),
      withAccuracy("vhlo.cbrt_v2", OpKind::Cbrt),
      unary("vhlo.ceil_v1", OpKind::Ceil),
      op("vhlo.cholesky_v1", OpKind::Cholesky, kOne, kOne, kNone, {"lower"}),
      op("vhlo.clamp_v1", OpKind::Clamp, n(3), kOne, kNone),
      versioned("vhlo.collective_broadcast_v1", OpKind::CollectiveBroadcast, "0.16.0",
                "1.19.0", kOne, kOne, kNone, {"replica_groups", "channel_id"}),
      versioned("vhlo.collective_broadcast_v2", OpKind::CollectiveBroadcast, "1.20.0",
                "current", kAny, kAny, kNone,
                {"replica_groups", "channel_id", "has_dynamic_root"}),
      op("vhlo.collective_permute_v1", OpKind::CollectivePermute, kOne, kOne, kNone,
         {"source_target_pairs", "channel_id"}),
      // collective_reduce has no ir op kind yet.
      versioned(
          "vhlo.collective_reduce_v1", std::nullopt, "1.19.0", "current", kAny, kAny,
          kOne,
          {"replica_groups", "channel_id", "use_global_device_ids", "has_dynamic_root"}),
      op("vhlo.compare_v1", OpKind::Compare, n(2), kOne, kNone,
         {"comparison_direction", "compare_type"}),
      binary("vhlo.complex_v1", OpKind::Complex),
      versioned("vhlo.composite_v1", OpKind::Composite, "0.19.0", "1.13.0", kAny, kAny,
                kNone, kCompositeAttrs),
      versioned("vhlo.composite_v2", OpKind::Composite, "1.14.0", "current", kAny, kAny,
                kAny, kCompositeAttrs),
      op("vhlo.concatenate_v1", OpKind::Concatenate, kAny, kOne, kNone, {"dimension"}),
      op("vhlo.constant_v1", OpKind::Constant, kNone, kOne, kNone, {"value"}),
      unary("vhlo.convert_v1", OpKind::Convert),
      op("vhlo.convolution_v1", OpKind::Convolution, n(2), kOne, kNone,
         plus(kConvAttrs, {"padding"})),
      unary("vhlo.cosine_v1", OpKind::Cosine, "0.9.0", "1.9.0"),
      withAccuracy("vhlo.cosine_v2", OpKind::Cosine),
      unary("vhlo.count_leading_zeros_v1", OpKind::CountLeadingZeros),
      op("vhlo.create_token_v1", OpKind::CreateToken, kNone, kOne, kNone),
      op("vhlo.cross-replica-sum_v1", OpKind::CrossReplicaSum, kOne, kOne, kNone,
         {"replica_groups"}),
      versioned("vhlo.custom_call_v1", OpKind::CustomCall, "0.9.0", "1.17.0", kAny, kAny,
                kNone, kCustomCallV1Attrs),
      versioned("vhlo.custom_call_v2", OpKind::CustomCall, "1.18.0", "current", kAny,
                kAny, kNone, plus(kCustomCallV1Attrs, {"result_tilings"})),
      binary("vhlo.divide_v1", OpKind::Divide),
      versioned("vhlo.dot_general_v1", OpKind::DotGeneral, "0.9.0", "1.5.0", n(2), kOne,
                kNone, kDotAttrs),
      versioned("vhlo.dot_general_v2", OpKind::DotGeneral, "1.6.0", "current", n(2), kOne,
                kNone,
                plus(kDotAttrs,
                     {"lhs_precision_type", "rhs_precision_type", "accumulation_type",
                      "lhs_component_count", "rhs_component_count",
                      "num_primitive_operations", "allow_imprecise_accumulation"})),
      op("vhlo.dot_v1", OpKind::Dot, n(2), kOne, kNone, {"precision_config"}),
      op("vhlo.dynamic_broadcast_in_dim_v1", OpKind::DynamicBroadcastInDim, n(2), kOne,
         kNone,
         {"broadcast_dimensions", "known_expanding_dimensions",
          "known_nonexpanding_dimensions"}),
      versioned("vhlo.dynamic_conv_v1", OpKind::DynamicConv, "0.9.0", "0.19.0", n(3),
                kOne, kNone, plus(kConvAttrs, {"padding"})),
      versioned("vhlo.dynamic_conv_v2", OpKind::DynamicConv, "0.20.0", "current", n(3),
                kOne, kNone, kConvAttrs),
      versioned("vhlo.dynamic_gather_v1", OpKind::DynamicGather, "0.9.0", "1.0.0", n(3),
                kOne, kNone, kGatherV1Attrs),
      versioned(
          "vhlo.dynamic_gather_v2", OpKind::DynamicGather, "1.1.0", "current", n(3), kOne,
          kNone,
          plus(kGatherV1Attrs, {"operand_batching_dims", "start_indices_batching_dims"})),
      op("vhlo.dynamic_iota_v1", OpKind::DynamicIota, kOne, kOne, kNone,
         {"iota_dimension"}),
      op("vhlo.dynamic_pad_v1", OpKind::DynamicPad, n(5), kOne, kNone),
      op("vhlo.dynamic_reshape_v1", OpKind::DynamicReshape, n(2), kOne, kNone),
      op("vhlo.dynamic_slice_v1", OpKind::DynamicSlice, atLeast(1), kOne, kNone,
         {"slice_sizes"}),
      op("vhlo.dynamic_update_slice_v1", OpKind::DynamicUpdateSlice, atLeast(2), kOne,
         kNone),
      op("vhlo.einsum_v1", OpKind::Einsum, n(2), kOne, kNone, {"einsum_config"}),
      unary("vhlo.exponential_minus_one_v1", OpKind::ExponentialMinusOne, "0.9.0",
            "1.9.0"),
      withAccuracy("vhlo.exponential_minus_one_v2", OpKind::ExponentialMinusOne),
      unary("vhlo.exponential_v1", OpKind::Exponential, "0.9.0", "1.8.0"),
      withAccuracy("vhlo.exponential_v2", OpKind::Exponential, "1.9.0"),
      op("vhlo.fft_v1", OpKind::Fft, kOne, kOne, kNone, {"fft_type", "fft_length"}),
      unary("vhlo.floor_v1", OpKind::Floor),
      // A function, not an op: imported as ir::Function at module level.
      op("vhlo.func_v1", std::nullopt, kNone, kNone, kOne,
         {"sym_name", "function_type", "sym_visibility", "arg_attrs", "res_attrs"}),
      versioned("vhlo.gather_v1", OpKind::Gather, "0.9.0", "1.0.0", n(2), kOne, kNone,
                plus(kGatherV1Attrs, {"slice_sizes"})),
      versioned("vhlo.gather_v2", OpKind::Gather, "1.1.0", "current", n(2), kOne, kNone,
                plus(kGatherV1Attrs, {"operand_batching_dims",
                                      "start_indices_batching_dims", "slice_sizes"})),
      op("vhlo.get_dimension_size_v1", OpKind::GetDimensionSize, kOne, kOne, kNone,
         {"dimension"}),
      op("vhlo.get_tuple_element_v1", OpKind::GetTupleElement, kOne, kOne, kNone,
         {"index"}),
      op("vhlo.if_v1", OpKind::If, kOne, kAny, n(2)),
      unary("vhlo.imag_v1", OpKind::Imag),
      op("vhlo.infeed_v1", OpKind::Infeed, kOne, kAny, kNone,
         {"infeed_config", "layout"}),
      op("vhlo.iota_v1", OpKind::Iota, kNone, kOne, kNone, {"iota_dimension"}),
      unary("vhlo.is_finite_v1", OpKind::IsFinite),
      unary("vhlo.log_plus_one_v1", OpKind::LogPlusOne, "0.9.0", "1.9.0"),
      withAccuracy("vhlo.log_plus_one_v2", OpKind::LogPlusOne),
      unary("vhlo.log_v1", OpKind::Log, "0.9.0", "1.9.0"),
      withAccuracy("vhlo.log_v2", OpKind::Log),
      unary("vhlo.logistic_v1", OpKind::Logistic, "0.9.0", "1.9.0"),
      withAccuracy("vhlo.logistic_v2", OpKind::Logistic),
      op("vhlo.map_v1", OpKind::Map, kAny, kOne, kOne, {"dimensions"}),
      binary("vhlo.maximum_v1", OpKind::Maximum),
      binary("vhlo.minimum_v1", OpKind::Minimum),
      binary("vhlo.multiply_v1", OpKind::Multiply),
      unary("vhlo.negate_v1", OpKind::Negate),
      unary("vhlo.not_v1", OpKind::Not),
      op("vhlo.optimization_barrier_v1", OpKind::OptimizationBarrier, kAny, kAny, kNone),
      binary("vhlo.or_v1", OpKind::Or),
      op("vhlo.outfeed_v1", OpKind::Outfeed, atLeast(1), kOne, kNone, {"outfeed_config"}),
      op("vhlo.pad_v1", OpKind::Pad, n(2), kOne, kNone,
         {"edge_padding_low", "edge_padding_high", "interior_padding"}),
      op("vhlo.partition_id_v1", OpKind::PartitionId, kNone, kOne, kNone),
      unary("vhlo.popcnt_v1", OpKind::Popcnt),
      binary("vhlo.power_v1", OpKind::Power),
      op("vhlo.real_dynamic_slice_v1", OpKind::RealDynamicSlice, n(4), kOne, kNone),
      unary("vhlo.real_v1", OpKind::Real),
      versioned("vhlo.recv_v1", OpKind::Recv, "0.9.0", "1.11.0", kOne, kAny, kNone,
                {"channel_id", "channel_type", "is_host_transfer"}),
      versioned(
          "vhlo.recv_v2", OpKind::Recv, "1.12.0", "current", kOne, kAny, kNone,
          {"channel_id", "channel_type", "is_host_transfer", "source_target_pairs"}),
      op("vhlo.reduce_precision_v1", OpKind::ReducePrecision, kOne, kOne, kNone,
         {"exponent_bits", "mantissa_bits"}),
      op("vhlo.reduce_scatter_v1", OpKind::ReduceScatter, kOne, kOne, kOne,
         {"scatter_dimension", "replica_groups", "channel_id", "use_global_device_ids"}),
      versioned("vhlo.reduce_v1", OpKind::Reduce, "0.9.0", "current", atLeast(2),
                atLeast(1), kOne, {"dimensions"}, kPairs),
      versioned("vhlo.reduce_window_v1", OpKind::ReduceWindow, "0.9.0", "current",
                atLeast(2), atLeast(1), kOne,
                {"window_dimensions", "window_strides", "base_dilations",
                 "window_dilations", "padding"},
                kPairs),
      binary("vhlo.remainder_v1", OpKind::Remainder),
      op("vhlo.replica_id_v1", OpKind::ReplicaId, kNone, kOne, kNone),
      unary("vhlo.reshape_v1", OpKind::Reshape),
      op("vhlo.return_v1", OpKind::Return, kAny, kNone, kNone),
      op("vhlo.reverse_v1", OpKind::Reverse, kOne, kOne, kNone, {"dimensions"}),
      op("vhlo.rng_bit_generator_v1", OpKind::RngBitGenerator, kOne, n(2), kNone,
         {"rng_algorithm"}),
      op("vhlo.rng_v1", OpKind::Rng, n(3), kOne, kNone, {"rng_distribution"}),
      unary("vhlo.round_nearest_afz_v1", OpKind::RoundNearestAfz),
      unary("vhlo.round_nearest_even_v1", OpKind::RoundNearestEven),
      unary("vhlo.rsqrt_v1", OpKind::Rsqrt, "0.9.0", "1.9.0"),
      withAccuracy("vhlo.rsqrt_v2", OpKind::Rsqrt),
      versioned("vhlo.scatter_v1", OpKind::Scatter, "0.9.0", "1.0.0", atLeast(3),
                atLeast(1), kOne, kScatterV1Attrs, OperandShape::ScatterGroups),
      versioned(
          "vhlo.scatter_v2", OpKind::Scatter, "1.1.0", "current", atLeast(3), atLeast(1),
          kOne,
          plus(kScatterV1Attrs, {"input_batching_dims", "scatter_indices_batching_dims"}),
          OperandShape::ScatterGroups),
      op("vhlo.select_and_scatter_v1", OpKind::SelectAndScatter, n(3), kOne, n(2),
         {"window_dimensions", "window_strides", "padding"}),
      op("vhlo.select_v1", OpKind::Select, n(3), kOne, kNone),
      versioned("vhlo.send_v1", OpKind::Send, "0.9.0", "1.11.0", atLeast(1), kOne, kNone,
                {"channel_id", "channel_type", "is_host_transfer"}),
      versioned(
          "vhlo.send_v2", OpKind::Send, "1.12.0", "current", atLeast(1), kOne, kNone,
          {"channel_id", "channel_type", "is_host_transfer", "source_target_pairs"}),
      op("vhlo.set_dimension_size_v1", OpKind::SetDimensionSize, n(2), kOne, kNone,
         {"dimension"}),
      binary("vhlo.shift_left_v1", OpKind::ShiftLeft),
      binary("vhlo.shift_right_arithmetic_v1", OpKind::ShiftRightArithmetic),
      binary("vhlo.shift_right_logical_v1", OpKind::ShiftRightLogical),
      unary("vhlo.sign_v1", OpKind::Sign),
      unary("vhlo.sine_v1", OpKind::Sine, "0.9.0", "1.9.0"),
      withAccuracy("vhlo.sine_v2", OpKind::Sine),
      op("vhlo.slice_v1", OpKind::Slice, kOne, kOne, kNone,
         {"start_indices", "limit_indices", "strides"}),
      op("vhlo.sort_v1", OpKind::Sort, kAny, kAny, kOne, {"dimension", "is_stable"}),
      unary("vhlo.sqrt_v1", OpKind::Sqrt, "0.9.0", "1.9.0"),
      withAccuracy("vhlo.sqrt_v2", OpKind::Sqrt),
      binary("vhlo.subtract_v1", OpKind::Subtract),
      unary("vhlo.tan_v1", OpKind::Tan, "1.4.0", "1.9.0"),
      withAccuracy("vhlo.tan_v2", OpKind::Tan),
      unary("vhlo.tanh_v1", OpKind::Tanh, "0.9.0", "1.9.0"),
      withAccuracy("vhlo.tanh_v2", OpKind::Tanh),
      op("vhlo.torch_index_select_v1", OpKind::TorchIndexSelect, n(2), kOne, kNone,
         {"dim", "batch_dims"}),
      op("vhlo.transpose_v1", OpKind::Transpose, kOne, kOne, kNone, {"permutation"}),
      op("vhlo.triangular_solve_v1", OpKind::TriangularSolve, n(2), kOne, kNone,
         {"left_side", "lower", "unit_diagonal", "transpose_a"}),
      op("vhlo.tuple_v1", OpKind::Tuple, kAny, kOne, kNone),
      op("vhlo.unary_einsum_v1", OpKind::UnaryEinsum, kOne, kOne, kNone,
         {"einsum_config"}),
      unary("vhlo.uniform_dequantize_v1", OpKind::UniformDequantize),
      unary("vhlo.uniform_quantize_v1", OpKind::UniformQuantize),
      op("vhlo.while_v1", OpKind::While, kAny, kAny, n(2)),
      binary("vhlo.xor_v1", OpKind::Xor),
  };
  std::sort(t.begin(), t.end(),
            [](const VhloOpInfo& a, const VhloOpInfo& b) { return a.name < b.name; });
  return t;
}

}  // namespace

const std::vector<VhloOpInfo>& vhloOpTable() {
  static const std::vector<VhloOpInfo> table = buildTable();
  return table;
}

const VhloOpInfo* findVhloOp(std::string_view name) {
  const auto& table = vhloOpTable();
  auto it = std::lower_bound(
      table.begin(), table.end(), name,
      [](const VhloOpInfo& row, std::string_view key) { return row.name < key; });
  return it != table.end() && it->name == name ? &*it : nullptr;
}

}  // namespace jft::frontend::vhlo
