// Attribute conversion through whole imports of one-op programs: VHLO's
// spelled-out fields become StableHLO's generic attributes (grouped
// dimension numbers, defaults dropped, typed enums), as StableHLO's
// legalization test (stablehlo_legalize_to_vhlo.mlir) pairs them.
#include <gtest/gtest.h>

#include "frontend/vhlo/import.h"
#include "import_test_util.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "tree_builder.h"

namespace jft::frontend::vhlo_test {
namespace {

using ir::OpKind;

// Imports a main(inputs) -> results whose body is one op.
struct OneOp {
  TreeBuilder b;
  StatusOr<ir::Module> module = internalError("not imported");

  const ir::Op& op(OpKind kind) {
    EXPECT_TRUE(module.isOk()) << module.status().toString();
    const ir::Op* found = module.isOk() ? firstOp(*module, kind) : nullptr;
    EXPECT_NE(found, nullptr);
    static const ir::Op kEmpty;
    return found ? *found : kEmpty;
  }
};

template <typename Attrs>
OneOp importOne(const std::string& name, std::vector<MTypePtr> inputs, MTypePtr result,
                Attrs attrs) {
  OneOp t;
  MTree tree =
      singleFunction(t.b, inputs, {result}, [&](const std::vector<uint32_t>& args) {
        std::vector<MOp> ops;
        ops.push_back(t.b.op(name, args, {result}, attrs));
        return ops;
      });
  t.module = importTree(tree);
  return t;
}

std::vector<std::pair<std::string, MAttrPtr>> dotAttrs(MAttrPtr precision) {
  return {{"lhs_batching_dimensions", i64s({0})},
          {"rhs_batching_dimensions", i64s({0})},
          {"lhs_contracting_dimensions", i64s({2})},
          {"rhs_contracting_dimensions", i64s({1})},
          {"precision_config", precision},
          {"lhs_precision_type", typeAttr(noneType())},
          {"rhs_precision_type", typeAttr(noneType())},
          {"accumulation_type", typeAttr(noneType())},
          {"lhs_component_count", typeAttr(noneType())},
          {"rhs_component_count", typeAttr(noneType())},
          {"num_primitive_operations", typeAttr(noneType())},
          {"allow_imprecise_accumulation", typeAttr(noneType())}};
}

TEST(OpAttrs, DotGeneralGroupsDimensionsAndDropsDefaultPrecision) {
  auto t = importOne("vhlo.dot_general_v2", {f32s({8, 8, 16}), f32s({8, 16, 8})},
                     f32s({8, 8, 8}), dotAttrs(precisions({0, 0})));
  const ir::Op& op = t.op(OpKind::DotGeneral);
  EXPECT_EQ(attrNames(op), "dot_dimension_numbers");
  const auto* dims =
      ir::findAttrAs<ir::DotDimensionNumbers>(op.attrs, "dot_dimension_numbers");
  ASSERT_NE(dims, nullptr);
  EXPECT_EQ(*dims, (ir::DotDimensionNumbers{{0}, {0}, {2}, {1}}));
}

TEST(OpAttrs, DotGeneralKeepsNonDefaultPrecision) {
  auto t = importOne("vhlo.dot_general_v2", {f32s({8, 8, 16}), f32s({8, 16, 8})},
                     f32s({8, 8, 8}), dotAttrs(precisions({2, 1})));
  const auto* p = ir::findAttrAs<std::vector<ir::Precision>>(
      t.op(OpKind::DotGeneral).attrs, "precision_config");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(*p,
            (std::vector<ir::Precision>{ir::Precision::HIGHEST, ir::Precision::HIGH}));
}

TEST(OpAttrs, DotGeneralAlgorithm) {
  auto attrs = dotAttrs(precisions({0, 0}));
  for (auto& [name, value] : attrs) {
    if (name == "lhs_precision_type" || name == "rhs_precision_type")
      value = typeAttr(floatType("bf16"));
    if (name == "accumulation_type") value = typeAttr(f32());
    if (name == "lhs_component_count" || name == "rhs_component_count")
      value = intAttr(1);
    if (name == "num_primitive_operations") value = intAttr(3);
    if (name == "allow_imprecise_accumulation") value = boolAttr(false);
  }
  auto t = importOne("vhlo.dot_general_v2", {f32s({8, 8, 16}), f32s({8, 16, 8})},
                     f32s({8, 8, 8}), attrs);
  const auto* algorithm =
      ir::findAttrAs<ir::DotAlgorithm>(t.op(OpKind::DotGeneral).attrs, "algorithm");
  ASSERT_NE(algorithm, nullptr);
  EXPECT_EQ(algorithm->lhs_precision_type, ir::Type::scalar(ir::ElementType::BF16));
  EXPECT_EQ(algorithm->accumulation_type, ir::Type::scalar(ir::ElementType::F32));
  EXPECT_EQ(algorithm->num_primitive_operations, 3);
  EXPECT_FALSE(algorithm->allow_imprecise_accumulation);
}

TEST(OpAttrs, DotGeneralV1HasNoAlgorithmFields) {
  auto attrs = dotAttrs(precisions({}));
  attrs.resize(5);
  auto t = importOne("vhlo.dot_general_v1", {f32s({8, 8, 16}), f32s({8, 16, 8})},
                     f32s({8, 8, 8}), attrs);
  EXPECT_EQ(attrNames(t.op(OpKind::DotGeneral)), "dot_dimension_numbers");
}

TEST(OpAttrs, ConvolutionDimensionNumbersAndDefaults) {
  std::vector<std::pair<std::string, MAttrPtr>> attrs = {
      {"batch_group_count", intAttr(1)},
      {"feature_group_count", intAttr(1)},
      {"input_batch_dimension", intAttr(0)},
      {"input_feature_dimension", intAttr(3)},
      {"input_spatial_dimensions", i64s({1, 2})},
      {"kernel_input_feature_dimension", intAttr(2)},
      {"kernel_output_feature_dimension", intAttr(3)},
      {"kernel_spatial_dimensions", i64s({0, 1})},
      {"lhs_dilation", i64Splat({2}, 1)},
      {"output_batch_dimension", intAttr(0)},
      {"output_feature_dimension", intAttr(3)},
      {"output_spatial_dimensions", i64s({1, 2})},
      {"padding", i64Splat({2, 2}, 1)},
      {"precision_config", precisions({0, 0})},
      {"rhs_dilation", i64s({1, 1})},
      {"window_reversal", denseRaw(tensor({2}, intType(1)), {0})},
      {"window_strides", i64s({2, 1})}};
  auto t = importOne("vhlo.convolution_v1", {f32s({2, 16, 16, 8}), f32s({3, 3, 8, 16})},
                     f32s({2, 8, 16, 16}), attrs);
  const ir::Op& op = t.op(OpKind::Convolution);
  EXPECT_EQ(
      attrNames(op),
      "batch_group_count,dimension_numbers,feature_group_count,padding,window_strides");
  const auto* dims =
      ir::findAttrAs<ir::ConvDimensionNumbers>(op.attrs, "dimension_numbers");
  ASSERT_NE(dims, nullptr);
  EXPECT_EQ(dims->input_feature_dim, 3);
  EXPECT_EQ(dims->input_spatial_dims, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(dims->kernel_input_feature_dim, 2);
  EXPECT_EQ(dims->kernel_output_feature_dim, 3);
  EXPECT_EQ(dims->kernel_spatial_dims, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(dims->output_spatial_dims, (std::vector<int64_t>{1, 2}));
  const auto* padding = ir::findAttrAs<ir::DenseElements>(op.attrs, "padding");
  ASSERT_NE(padding, nullptr);
  EXPECT_EQ(padding->type, ir::Type::tensor(ir::ElementType::I64, {2, 2}));
  EXPECT_TRUE(padding->splat);
  EXPECT_EQ(padding->expanded().size(), 32u);
  EXPECT_EQ(padding->element(3)[0], 1);
  EXPECT_EQ(*ir::findAttrAs<std::vector<int64_t>>(op.attrs, "window_strides"),
            (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(*ir::findAttrAs<int64_t>(op.attrs, "feature_group_count"), 1);
}

TEST(OpAttrs, ConvolutionKeepsWindowReversalWhenSet) {
  std::vector<std::pair<std::string, MAttrPtr>> attrs = {
      {"batch_group_count", intAttr(1)},
      {"feature_group_count", intAttr(1)},
      {"input_batch_dimension", intAttr(0)},
      {"input_feature_dimension", intAttr(1)},
      {"input_spatial_dimensions", i64s({2})},
      {"kernel_input_feature_dimension", intAttr(1)},
      {"kernel_output_feature_dimension", intAttr(0)},
      {"kernel_spatial_dimensions", i64s({2})},
      {"lhs_dilation", i64s({1})},
      {"output_batch_dimension", intAttr(0)},
      {"output_feature_dimension", intAttr(1)},
      {"output_spatial_dimensions", i64s({2})},
      {"padding", i64Splat({1, 2}, 0)},
      {"precision_config", precisions({0, 0})},
      {"rhs_dilation", i64s({1})},
      {"window_reversal", denseRaw(tensor({1}, intType(1)), {1})},
      {"window_strides", i64s({1})}};
  auto t = importOne("vhlo.convolution_v1", {f32s({1, 1, 8}), f32s({1, 1, 3})},
                     f32s({1, 1, 6}), attrs);
  const ir::Op& op = t.op(OpKind::Convolution);
  EXPECT_EQ(attrNames(op),
            "batch_group_count,dimension_numbers,feature_group_count,"
            "window_reversal");
  EXPECT_EQ(*ir::findAttrAs<std::vector<bool>>(op.attrs, "window_reversal"),
            (std::vector<bool>{true}));
}

TEST(OpAttrs, GatherV2AndV1) {
  std::vector<std::pair<std::string, MAttrPtr>> v2 = {
      {"collapsed_slice_dims", i64s({0, 1})},  {"index_vector_dim", intAttr(2)},
      {"indices_are_sorted", boolAttr(false)}, {"offset_dims", i64s({2})},
      {"operand_batching_dims", i64s({})},     {"slice_sizes", i64Splat({3}, 1)},
      {"start_index_map", i64s({0, 1})},       {"start_indices_batching_dims", i64s({})}};
  auto t = importOne("vhlo.gather_v2", {f32s({2, 4, 9}), tensor({1, 5, 2}, intType(32))},
                     f32s({1, 5, 1}), v2);
  const ir::Op& op = t.op(OpKind::Gather);
  EXPECT_EQ(attrNames(op), "dimension_numbers,slice_sizes");
  const auto* dims =
      ir::findAttrAs<ir::GatherDimensionNumbers>(op.attrs, "dimension_numbers");
  ASSERT_NE(dims, nullptr);
  EXPECT_EQ(*dims, (ir::GatherDimensionNumbers{{2}, {0, 1}, {}, {}, {0, 1}, 2}));
  EXPECT_EQ(*ir::findAttrAs<std::vector<int64_t>>(op.attrs, "slice_sizes"),
            (std::vector<int64_t>{1, 1, 1}));

  std::vector<std::pair<std::string, MAttrPtr>> v1 = {
      {"collapsed_slice_dims", i64s({0})},    {"index_vector_dim", intAttr(1)},
      {"indices_are_sorted", boolAttr(true)}, {"offset_dims", i64s({1})},
      {"slice_sizes", i64s({1, 16})},         {"start_index_map", i64s({0})}};
  auto t1 = importOne("vhlo.gather_v1", {f32s({100, 16}), tensor({32, 1}, intType(32))},
                      f32s({32, 16}), v1);
  const ir::Op& op1 = t1.op(OpKind::Gather);
  EXPECT_EQ(attrNames(op1), "dimension_numbers,indices_are_sorted,slice_sizes");
  EXPECT_EQ(*ir::findAttrAs<ir::GatherDimensionNumbers>(op1.attrs, "dimension_numbers"),
            (ir::GatherDimensionNumbers{{1}, {0}, {}, {}, {0}, 1}));
  EXPECT_TRUE(*ir::findAttrAs<bool>(op1.attrs, "indices_are_sorted"));
}

TEST(OpAttrs, CompareDropsNoTypeAndKeepsDirection) {
  auto t = importOne(
      "vhlo.compare_v1", {f32s({}), f32s({})}, tensor({}, intType(1)),
      std::vector<std::pair<std::string, MAttrPtr>>{
          {"compare_type", enumAttr("vhlo.comparison_type_v1", 0)},
          {"comparison_direction", enumAttr("vhlo.comparison_direction_v1", 5)}});
  const ir::Op& op = t.op(OpKind::Compare);
  EXPECT_EQ(attrNames(op), "comparison_direction");
  EXPECT_EQ(*ir::findAttrAs<ir::ComparisonDirection>(op.attrs, "comparison_direction"),
            ir::ComparisonDirection::LT);

  auto t2 = importOne(
      "vhlo.compare_v1", {f32s({}), f32s({})}, tensor({}, intType(1)),
      std::vector<std::pair<std::string, MAttrPtr>>{
          {"compare_type", enumAttr("vhlo.comparison_type_v1", 2)},
          {"comparison_direction", enumAttr("vhlo.comparison_direction_v1", 3)}});
  const ir::Op& op2 = t2.op(OpKind::Compare);
  EXPECT_EQ(*ir::findAttrAs<ir::ComparisonType>(op2.attrs, "compare_type"),
            ir::ComparisonType::TOTALORDER);
  EXPECT_EQ(*ir::findAttrAs<ir::ComparisonDirection>(op2.attrs, "comparison_direction"),
            ir::ComparisonDirection::GT);
}

TEST(OpAttrs, CustomCallFullForm) {
  std::vector<std::pair<std::string, MAttrPtr>> attrs = {
      {"api_version", enumAttr("vhlo.api_version_v1", 2)},
      {"backend_config", stringAttr(std::string("\x08\x03\x1a\x02", 4))},
      {"call_target_name", stringAttr("foo")},
      {"called_computations", arrayAttr({stringAttr("foo")})},
      {"has_side_effect", boolAttr(true)},
      {"operand_layouts", arrayAttr({denseRaw(tensor({0}, indexType()), {})})},
      {"output_operand_aliases",
       arrayAttr({structAttr("vhlo.output_operand_alias_v1",
                             {{"output_tuple_indices", intList({})},
                              {"operand_index", intAttr(0)},
                              {"operand_tuple_indices", intList({})}})})},
      {"result_layouts", arrayAttr({denseRaw(tensor({0}, indexType()), {})})},
      {"result_tilings", arrayAttr({})},
      {"mhlo.frontend_attributes", dictAttr({{"num_batch_dims", stringAttr("0")}})},
      {"sdy.sharding_rule", opaqueAttr("sdy", "#sdy.op_sharding_rule<([i])->([i])>")}};
  auto t = importOne("vhlo.custom_call_v2", {f32s({})}, f32s({}), attrs);
  const ir::Op& op = t.op(OpKind::CustomCall);
  EXPECT_EQ(attrNames(op),
            "api_version,backend_config,call_target_name,called_computations,"
            "has_side_effect,mhlo.frontend_attributes,operand_layouts,"
            "output_operand_aliases,result_layouts,sdy.sharding_rule");
  EXPECT_EQ(*ir::findAttrAs<ir::CustomCallApiVersion>(op.attrs, "api_version"),
            ir::CustomCallApiVersion::STATUS_RETURNING);
  EXPECT_EQ(*ir::findAttrAs<std::string>(op.attrs, "backend_config"),
            std::string("\x08\x03\x1a\x02", 4));
  EXPECT_EQ(*ir::findAttrAs<std::string>(op.attrs, "call_target_name"), "foo");
  EXPECT_EQ(*ir::findAttrAs<ir::AttrList>(op.attrs, "called_computations"),
            (ir::AttrList{ir::Attribute(ir::SymbolRef{"foo"})}));
  EXPECT_EQ(*ir::findAttrAs<ir::AttrList>(op.attrs, "operand_layouts"),
            (ir::AttrList{ir::Attribute(std::vector<int64_t>{})}));
  EXPECT_EQ(*ir::findAttrAs<std::vector<ir::OutputOperandAlias>>(
                op.attrs, "output_operand_aliases"),
            (std::vector<ir::OutputOperandAlias>{{{}, 0, {}}}));
  const auto* frontend =
      ir::findAttrAs<ir::NamedAttrs>(op.attrs, "mhlo.frontend_attributes");
  ASSERT_NE(frontend, nullptr);
  EXPECT_EQ(*frontend,
            (ir::NamedAttrs{{"num_batch_dims", ir::Attribute(std::string("0"))}}));
  const auto* sdy = ir::findAttrAs<ir::OpaqueAttr>(op.attrs, "sdy.sharding_rule");
  ASSERT_NE(sdy, nullptr);
  EXPECT_EQ(sdy->dialect, "sdy");
}

TEST(OpAttrs, CustomCallDefaultsAreDropped) {
  std::vector<std::pair<std::string, MAttrPtr>> attrs = {
      {"api_version", enumAttr("vhlo.api_version_v1", 1)},
      {"backend_config", stringAttr("")},
      {"call_target_name", stringAttr("foo")},
      {"called_computations", arrayAttr({})},
      {"has_side_effect", boolAttr(false)},
      {"operand_layouts", arrayAttr({})},
      {"output_operand_aliases", arrayAttr({})},
      {"result_layouts", arrayAttr({})}};
  auto t = importOne("vhlo.custom_call_v1", {f32s({})}, f32s({}), attrs);
  EXPECT_EQ(attrNames(t.op(OpKind::CustomCall)), "call_target_name");
}

TEST(OpAttrs, CustomCallDictionaryBackendConfig) {
  std::vector<std::pair<std::string, MAttrPtr>> attrs = {
      {"api_version", enumAttr("vhlo.api_version_v1", 4)},
      {"backend_config", dictAttr({{"bar", intAttr(42, intType(32))}})},
      {"call_target_name", stringAttr("foo")},
      {"called_computations", arrayAttr({})},
      {"has_side_effect", boolAttr(false)},
      {"operand_layouts", arrayAttr({})},
      {"output_operand_aliases", arrayAttr({})},
      {"result_layouts", arrayAttr({})},
      {"result_tilings", arrayAttr({})}};
  auto t = importOne("vhlo.custom_call_v2", {f32s({})}, f32s({}), attrs);
  const ir::Op& op = t.op(OpKind::CustomCall);
  EXPECT_EQ(*ir::findAttrAs<ir::CustomCallApiVersion>(op.attrs, "api_version"),
            ir::CustomCallApiVersion::TYPED_FFI);
  // The integer keeps its type (a one-element i32 literal), which an FFI
  // handler binding Attr<int32_t> checks.
  const auto* config = ir::findAttrAs<ir::NamedAttrs>(op.attrs, "backend_config");
  ASSERT_NE(config, nullptr);
  const auto* bar = ir::findAttrAs<ir::DenseElements>(*config, "bar");
  ASSERT_NE(bar, nullptr);
  EXPECT_EQ(bar->type.element, ir::ElementType::I32);
  EXPECT_EQ(ir::scalarInteger(*bar), 42);
}

TEST(OpAttrs, CompositeNameSymbolAndAttributes) {
  std::vector<std::pair<std::string, MAttrPtr>> attrs = {
      {"composite_attributes", dictAttr({{"k", intAttr(4)}})},
      {"decomposition", stringAttr("chlo.top_k.impl")},
      {"name", stringAttr("chlo.top_k")},
      {"version", intAttr(1, intType(32))}};
  auto t = importOne("vhlo.composite_v2", {f32s({8, 100})}, f32s({8, 4}), attrs);
  const ir::Op& op = t.op(OpKind::Composite);
  EXPECT_EQ(attrNames(op), "composite_attributes,decomposition,name,version");
  EXPECT_EQ(*ir::findAttrAs<ir::SymbolRef>(op.attrs, "decomposition"),
            ir::SymbolRef{"chlo.top_k.impl"});
  EXPECT_EQ(*ir::findAttrAs<std::string>(op.attrs, "name"), "chlo.top_k");
  EXPECT_EQ(*ir::findAttrAs<int64_t>(op.attrs, "version"), 1);
  EXPECT_EQ(*ir::findAttrAs<ir::NamedAttrs>(op.attrs, "composite_attributes"),
            (ir::NamedAttrs{{"k", ir::Attribute(int64_t{4})}}));

  std::vector<std::pair<std::string, MAttrPtr>> defaults = {
      {"composite_attributes", dictAttr({})},
      {"decomposition", stringAttr("impl")},
      {"name", stringAttr("my.op")},
      {"version", intAttr(0)}};
  auto t0 = importOne("vhlo.composite_v1", {f32s({})}, f32s({}), defaults);
  EXPECT_EQ(attrNames(t0.op(OpKind::Composite)), "decomposition,name");
}

TEST(OpAttrs, CollectivesChannelHandleAndUnitFlags) {
  std::vector<std::pair<std::string, MAttrPtr>> attrs = {
      {"all_gather_dim", intAttr(1)},
      {"channel_id", intAttr(1)},
      {"replica_groups", i64Matrix(2, 1, {0, 1})},
      {"use_global_device_ids", boolAttr(true)}};
  auto t = importOne("vhlo.all_gather_v2", {f32s({16, 8})}, f32s({16, 16}), attrs);
  const ir::Op& op = t.op(OpKind::AllGather);
  EXPECT_EQ(attrNames(op),
            "all_gather_dim,channel_handle,replica_groups,use_global_device_ids");
  EXPECT_EQ(*ir::findAttrAs<ir::ChannelHandle>(op.attrs, "channel_handle"),
            (ir::ChannelHandle{1, 0}));
  EXPECT_TRUE(ir::findAttrAs<ir::UnitAttr>(op.attrs, "use_global_device_ids"));
  const auto* groups = ir::findAttrAs<ir::DenseElements>(op.attrs, "replica_groups");
  ASSERT_NE(groups, nullptr);
  EXPECT_EQ(groups->type, ir::Type::tensor(ir::ElementType::I64, {2, 1}));

  attrs[1].second = intAttr(0);
  attrs[3].second = boolAttr(false);
  auto t0 = importOne("vhlo.all_gather_v2", {f32s({16, 8})}, f32s({16, 16}), attrs);
  EXPECT_EQ(attrNames(t0.op(OpKind::AllGather)), "all_gather_dim,replica_groups");
}

TEST(OpAttrs, FalseUnitFlagsAreAbsentEvenWithoutADefaultRule) {
  // reduce_scatter's flags, set and unset.
  for (bool global : {true, false}) {
    TreeBuilder b;
    MTree tree = singleFunction(
        b, {f32s({16})}, {f32s({8})}, [&](const std::vector<uint32_t>& args) {
          std::vector<MOp> ops;
          MOp op = b.op("vhlo.reduce_scatter_v1", args, {f32s({8})},
                        {{"scatter_dimension", intAttr(0)},
                         {"replica_groups", i64Matrix(1, 2, {0, 1})},
                         {"channel_id", intAttr(3)},
                         {"use_global_device_ids", boolAttr(global)}});
          op.regions.push_back(
              b.region({f32s({}), f32s({})}, [&](const std::vector<uint32_t>& a) {
                std::vector<MOp> body;
                body.push_back(b.op("vhlo.add_v1", a, {f32s({})}));
                body.push_back(b.ret(body.back().results));
                return body;
              }));
          ops.push_back(std::move(op));
          return ops;
        });
    auto m = importTree(tree);
    ASSERT_TRUE(m.isOk()) << m.status().toString();
    const ir::Op* op = firstOp(*m, OpKind::ReduceScatter);
    ASSERT_NE(op, nullptr);
    EXPECT_EQ(attrNames(*op), global ? "channel_handle,replica_groups,scatter_dimension,"
                                       "use_global_device_ids"
                                     : "channel_handle,replica_groups,scatter_dimension");
    EXPECT_EQ(*ir::findAttrAs<ir::ChannelHandle>(op->attrs, "channel_handle"),
              (ir::ChannelHandle{3, 0}));
  }
}

TEST(OpAttrs, SendGroupsChannelIdAndType) {
  TreeBuilder b;
  MTree tree = singleFunction(b, {f32s({}), token()}, {token()},
                              [&](const std::vector<uint32_t>& args) {
                                std::vector<MOp> ops;
                                ops.push_back(b.op("vhlo.send_v2", args, {token()},
                                                   {{"channel_id", intAttr(5)},
                                                    {"channel_type", intAttr(2)},
                                                    {"is_host_transfer", boolAttr(true)},
                                                    {"source_target_pairs", i64s({})}}));
                                return ops;
                              });
  auto m = importTree(tree);
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  const ir::Op* op = firstOp(*m, OpKind::Send);
  ASSERT_NE(op, nullptr);
  EXPECT_EQ(attrNames(*op), "channel_handle,is_host_transfer");
  EXPECT_EQ(*ir::findAttrAs<ir::ChannelHandle>(op->attrs, "channel_handle"),
            (ir::ChannelHandle{5, 2}));
}

TEST(OpAttrs, TranscendentalResultAccuracy) {
  auto accuracy = [](double atol, int64_t ulps, int64_t mode) {
    return structAttr("vhlo.result_accuracy_v1",
                      {{"atol", floatAttr(atol)},
                       {"rtol", floatAttr(0)},
                       {"ulps", intAttr(ulps)},
                       {"mode", enumAttr("vhlo.result_accuracy_mode_v1", mode)}});
  };
  auto dflt = importOne("vhlo.exponential_v2", {f32s({})}, f32s({}),
                        std::vector<std::pair<std::string, MAttrPtr>>{
                            {"result_accuracy", accuracy(0, 0, 0)}});
  EXPECT_EQ(attrNames(dflt.op(OpKind::Exponential)), "");
  auto tol = importOne("vhlo.tanh_v2", {f32s({})}, f32s({}),
                       std::vector<std::pair<std::string, MAttrPtr>>{
                           {"result_accuracy", accuracy(1e-5, 1, 2)}});
  const auto* ra =
      ir::findAttrAs<ir::ResultAccuracy>(tol.op(OpKind::Tanh).attrs, "result_accuracy");
  ASSERT_NE(ra, nullptr);
  EXPECT_EQ(*ra, (ir::ResultAccuracy{1e-5, 0, 1, ir::ResultAccuracyMode::TOLERANCE}));
}

TEST(OpAttrs, EnumsOfFftRngTriangularSolve) {
  auto fft = importOne(
      "vhlo.fft_v1", {f32s({4, 256})}, tensor({4, 129}, complexOf(f32())),
      std::vector<std::pair<std::string, MAttrPtr>>{
          {"fft_length", i64s({256})}, {"fft_type", enumAttr("vhlo.fft_type_v1", 2)}});
  const ir::Op& f = fft.op(OpKind::Fft);
  EXPECT_EQ(*ir::findAttrAs<ir::FftType>(f.attrs, "fft_type"), ir::FftType::RFFT);
  EXPECT_EQ(*ir::findAttrAs<std::vector<int64_t>>(f.attrs, "fft_length"),
            (std::vector<int64_t>{256}));

  auto ts =
      importOne("vhlo.triangular_solve_v1", {f32s({4, 4}), f32s({4, 2})}, f32s({4, 2}),
                std::vector<std::pair<std::string, MAttrPtr>>{
                    {"left_side", boolAttr(true)},
                    {"lower", boolAttr(false)},
                    {"transpose_a", enumAttr("vhlo.transpose_v1", 3)},
                    {"unit_diagonal", boolAttr(false)}});
  const ir::Op& s = ts.op(OpKind::TriangularSolve);
  EXPECT_EQ(*ir::findAttrAs<ir::Transpose>(s.attrs, "transpose_a"),
            ir::Transpose::ADJOINT);
  EXPECT_FALSE(*ir::findAttrAs<bool>(s.attrs, "lower"));

  TreeBuilder b;
  MTypePtr state = tensor({2}, intType(64, MType::Signedness::Unsigned));
  MTree tree = singleFunction(
      b, {state}, {state, f32s({4})}, [&](const std::vector<uint32_t>& args) {
        std::vector<MOp> ops;
        ops.push_back(b.op("vhlo.rng_bit_generator_v1", args, {state, f32s({4})},
                           {{"rng_algorithm", enumAttr("vhlo.rng_algorithm_v1", 1)}}));
        return ops;
      });
  auto m = importTree(tree);
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  EXPECT_EQ(*ir::findAttrAs<ir::RngAlgorithm>(firstOp(*m, OpKind::RngBitGenerator)->attrs,
                                              "rng_algorithm"),
            ir::RngAlgorithm::THREE_FRY);
}

TEST(OpAttrs, DimensionListsBecomeIntegerVectors) {
  auto bcast = importOne(
      "vhlo.broadcast_in_dim_v1", {f32s({16})}, f32s({16, 16}),
      std::vector<std::pair<std::string, MAttrPtr>>{{"broadcast_dimensions", i64s({1})}});
  EXPECT_EQ(*ir::findAttrAs<std::vector<int64_t>>(bcast.op(OpKind::BroadcastInDim).attrs,
                                                  "broadcast_dimensions"),
            (std::vector<int64_t>{1}));
  auto slice = importOne(
      "vhlo.slice_v1", {f32s({8, 100})}, f32s({8, 4}),
      std::vector<std::pair<std::string, MAttrPtr>>{{"limit_indices", i64s({8, 4})},
                                                    {"start_indices", i64s({0, 0})},
                                                    {"strides", i64Splat({2}, 1)}});
  const ir::Op& s = slice.op(OpKind::Slice);
  EXPECT_EQ(attrNames(s), "limit_indices,start_indices,strides");
  EXPECT_EQ(*ir::findAttrAs<std::vector<int64_t>>(s.attrs, "strides"),
            (std::vector<int64_t>{1, 1}));
  auto iota = importOne(
      "vhlo.iota_v1", {}, tensor({8}, intType(32)),
      std::vector<std::pair<std::string, MAttrPtr>>{{"iota_dimension", intAttr(0)}});
  EXPECT_EQ(*ir::findAttrAs<int64_t>(iota.op(OpKind::Iota).attrs, "iota_dimension"), 0);
}

TEST(OpAttrs, ForeignAttributesStayOpaqueWithTheirText) {
  auto bytes_only = std::make_shared<MAttr>();
  bytes_only->kind = MAttr::Kind::Opaque;
  bytes_only->dialect = "sdy";
  bytes_only->data = {0x15, 0x0B, 0x81};
  auto t =
      importOne("vhlo.negate_v1", {f32s({})}, f32s({}),
                std::vector<std::pair<std::string, MAttrPtr>>{
                    {"sdy.sharding_rule", bytes_only},
                    {"sdy.sharding", opaqueAttr("sdy", "#sdy.sharding<@mesh, [{}]>")}});
  const ir::Op& op = t.op(OpKind::Negate);
  EXPECT_EQ(*ir::findAttrAs<ir::OpaqueAttr>(op.attrs, "sdy.sharding_rule"),
            (ir::OpaqueAttr{"sdy", "0x150B81"}));
  EXPECT_EQ(*ir::findAttrAs<ir::OpaqueAttr>(op.attrs, "sdy.sharding"),
            (ir::OpaqueAttr{"sdy", "#sdy.sharding<@mesh, [{}]>"}));
}

TEST(OpAttrs, ConstantValueIsDenseElements) {
  auto t = importOne("vhlo.constant_v1", {}, tensor({2}, intType(1)),
                     std::vector<std::pair<std::string, MAttrPtr>>{
                         {"value", denseRaw(tensor({2}, intType(1)), {1})}});
  const auto* value =
      ir::findAttrAs<ir::DenseElements>(t.op(OpKind::Constant).attrs, "value");
  ASSERT_NE(value, nullptr);
  EXPECT_EQ(value->type, ir::Type::tensor(ir::ElementType::PRED, {2}));
  EXPECT_TRUE(value->splat);
  EXPECT_EQ(value->bytes, (std::vector<uint8_t>{1}));
  EXPECT_EQ(value->expanded(), (std::vector<uint8_t>{1, 1}));
}

TEST(OpAttrs, HugeSplatConstantImportsVerifiesAndPrintsAsOneElement) {
  // 2^40 f32 elements (4 TiB spelled out) of 1.0f = 0x3F800000.
  const int64_t n = int64_t{1} << 40;
  auto t = importOne("vhlo.constant_v1", {}, f32s({n}),
                     std::vector<std::pair<std::string, MAttrPtr>>{
                         {"value", denseRaw(f32s({n}), {0, 0, 0x80, 0x3F})}});
  ASSERT_TRUE(t.module.isOk()) << t.module.status().toString();
  const auto* value =
      ir::findAttrAs<ir::DenseElements>(t.op(OpKind::Constant).attrs, "value");
  ASSERT_NE(value, nullptr);
  EXPECT_TRUE(value->splat);
  EXPECT_EQ(value->bytes, (std::vector<uint8_t>{0, 0, 0x80, 0x3F}));
  EXPECT_TRUE(ir::verifyModule(*t.module).isOk());
  EXPECT_NE(ir::printModule(*t.module).find(
                "stablehlo.constant dense<1.0> : tensor<1099511627776xf32>"),
            std::string::npos)
      << ir::printModule(*t.module);
}

}  // namespace
}  // namespace jft::frontend::vhlo_test
