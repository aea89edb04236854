// Damaged IR never crashes the verifier or the printer: a module exercising
// many op rules is mutated at random (op kinds swapped, attribute integers
// replaced by extremes, operands rewired or dropped, regions emptied, values
// of arbitrary types put in place of operands and results) and
// both must answer OK or INVALID_ARGUMENT. Seeded, so failures reproduce.
#include <limits>
#include <random>

#include "ir/printer.h"
#include "verifier_test_util.h"

namespace jft::ir {
namespace {

using namespace jft::ir::testing;
using Ints = std::vector<int64_t>;

Module corpus() {
  return buildMain(
      {f32({4, 6}), f32({6, 5}), i32({3, 1}), f32(), f32({2, 8, 8, 3}), f32({3, 3, 3, 4}),
       pred()},
      [](Builder& b, const std::vector<ValueId>& a) {
        std::vector<ValueId> out;
        DotDimensionNumbers dot;
        dot.lhs_contracting_dims = {1};
        dot.rhs_contracting_dims = {0};
        out.push_back(b.op1(OpKind::DotGeneral, {a[0], a[1]}, f32({4, 5}),
                            {{"dot_dimension_numbers", dot}}));
        out.push_back(
            b.op1(OpKind::Transpose, {a[0]}, f32({6, 4}), {{"permutation", Ints{1, 0}}}));
        out.push_back(b.op1(OpKind::Pad, {a[0], a[3]}, f32({6, 6}),
                            {{"edge_padding_low", Ints{1, 0}},
                             {"edge_padding_high", Ints{1, 0}},
                             {"interior_padding", Ints{0, 0}}}));
        GatherDimensionNumbers g;
        g.offset_dims = {1};
        g.collapsed_slice_dims = {0};
        g.start_index_map = {0};
        g.index_vector_dim = 1;
        out.push_back(b.op1(OpKind::Gather, {a[0], a[2]}, f32({3, 6}),
                            {{"dimension_numbers", g}, {"slice_sizes", Ints{1, 6}}}));
        ScatterDimensionNumbers s;
        s.update_window_dims = {1};
        s.inserted_window_dims = {0};
        s.scatter_dims_to_operand_dims = {0};
        s.index_vector_dim = 1;
        ValueId updates = b.op1(OpKind::Slice, {a[0]}, f32({3, 6}),
                                {{"start_indices", Ints{0, 0}},
                                 {"limit_indices", Ints{3, 6}},
                                 {"strides", Ints{1, 1}}});
        Region add = combiner(b, {f32(), f32()}, OpKind::Add);
        out.push_back(b.op1(OpKind::Scatter, {a[0], a[2], updates}, f32({4, 6}),
                            {{"scatter_dimension_numbers", s}}, {std::move(add)}));
        Region sum = combiner(b, {f32(), f32()}, OpKind::Add);
        out.push_back(b.op1(OpKind::Reduce, {a[0], a[3]}, f32({4}),
                            {{"dimensions", Ints{1}}}, {std::move(sum)}));
        Region max = combiner(b, {f32(), f32()}, OpKind::Maximum);
        out.push_back(
            b.op1(OpKind::ReduceWindow, {a[0], a[3]}, f32({2, 3}),
                  {{"window_dimensions", Ints{2, 2}}, {"window_strides", Ints{2, 2}}},
                  {std::move(max)}));
        ConvDimensionNumbers c;
        c.input_spatial_dims = {1, 2};
        c.input_feature_dim = 3;
        c.kernel_spatial_dims = {0, 1};
        c.kernel_input_feature_dim = 2;
        c.kernel_output_feature_dim = 3;
        c.output_spatial_dims = {1, 2};
        c.output_feature_dim = 3;
        out.push_back(b.op1(OpKind::Convolution, {a[4], a[5]}, f32({2, 6, 6, 4}),
                            {{"dimension_numbers", c}, {"window_strides", Ints{1, 1}}}));
        std::vector<Region> branches;
        for (int i = 0; i < 2; ++i) {
          b.beginRegion({});
          b.ret({b.op1(OpKind::Negate, {a[3]}, f32())});
          branches.push_back(b.endRegion());
        }
        out.push_back(b.op1(OpKind::If, {a[6]}, f32(), {}, std::move(branches)));
        out.push_back(b.op1(OpKind::BroadcastInDim, {a[3]}, f32({4, 6}),
                            {{"broadcast_dimensions", Ints{}}}));
        out.push_back(
            b.op1(OpKind::Iota, {}, i32({4, 6}), {{"iota_dimension", int64_t{1}}}));
        out.push_back(b.constant(denseFromValues(f32({2}), {1, 2})));
        return out;
      });
}

// Every int64 inside an attribute, flattened so one can be picked at random.
void collectInts(Attribute& attr, std::vector<int64_t*>& out) {
  auto add = [&](std::vector<int64_t>& v) {
    for (int64_t& x : v) out.push_back(&x);
  };
  if (attr.is<int64_t>()) out.push_back(&std::get<int64_t>(attr.value));
  if (attr.is<std::vector<int64_t>>()) add(std::get<std::vector<int64_t>>(attr.value));
  if (attr.is<DotDimensionNumbers>()) {
    auto& d = std::get<DotDimensionNumbers>(attr.value);
    add(d.lhs_batching_dims), add(d.rhs_batching_dims);
    add(d.lhs_contracting_dims), add(d.rhs_contracting_dims);
  }
  if (attr.is<GatherDimensionNumbers>()) {
    auto& g = std::get<GatherDimensionNumbers>(attr.value);
    add(g.offset_dims), add(g.collapsed_slice_dims), add(g.start_index_map);
    out.push_back(&g.index_vector_dim);
  }
  if (attr.is<ScatterDimensionNumbers>()) {
    auto& s = std::get<ScatterDimensionNumbers>(attr.value);
    add(s.update_window_dims), add(s.inserted_window_dims);
    add(s.scatter_dims_to_operand_dims);
    out.push_back(&s.index_vector_dim);
  }
  if (attr.is<ConvDimensionNumbers>()) {
    auto& c = std::get<ConvDimensionNumbers>(attr.value);
    for (int64_t* x :
         {&c.input_batch_dim, &c.input_feature_dim, &c.kernel_input_feature_dim,
          &c.kernel_output_feature_dim, &c.output_batch_dim, &c.output_feature_dim})
      out.push_back(x);
    add(c.input_spatial_dims), add(c.kernel_spatial_dims), add(c.output_spatial_dims);
  }
}

// Any type at all: tokens, tuples, scalars, empty or huge dimensions.
Type randomType(std::mt19937_64& rng) {
  switch (rng() % 8) {
    case 0:
      return Type::token();
    case 1:
      return Type::makeTuple({f32({2}), Type::token()});
    default:
      break;
  }
  const int64_t sizes[] = {0, 1, 2, 3, 4, 6, int64_t{1} << 40};
  std::vector<int64_t> dims(rng() % 5);
  for (int64_t& d : dims) d = sizes[rng() % 7];
  return Type::tensor(static_cast<ElementType>(rng() % kNumElementTypes), dims);
}

void collectOps(Region& region, std::vector<Op*>& out) {
  for (Op& op : region.ops) {
    out.push_back(&op);
    for (Region& nested : op.regions) collectOps(nested, out);
  }
}

TEST(Mutation, VerifierAndPrinterSurviveDamagedIr) {
  const Module original = corpus();
  ASSERT_TRUE(verifyModule(original).isOk()) << verifyModule(original).toString();
  std::mt19937_64 rng(20261202);
  const int64_t extremes[] = {-1,
                              0,
                              1,
                              2,
                              3,
                              7,
                              std::numeric_limits<int64_t>::max(),
                              std::numeric_limits<int64_t>::min()};
  int rejected = 0;
  for (int round = 0; round < 3000; ++round) {
    Module m = original;
    for (int k = 0; k < 3; ++k) {
      // Collected afresh: emptying a region frees the ops inside it.
      std::vector<Op*> ops;
      collectOps(m.functions[0].body, ops);
      Op& op = *ops[rng() % ops.size()];
      switch (rng() % 7) {
        case 0:
          op.kind = static_cast<OpKind>(rng() % kNumOpKinds);
          break;
        case 1: {
          std::vector<int64_t*> ints;
          for (auto& [name, attr] : op.attrs) collectInts(attr, ints);
          if (!ints.empty()) *ints[rng() % ints.size()] = extremes[rng() % 8];
          break;
        }
        case 2:
          if (!op.operands.empty())
            op.operands[rng() % op.operands.size()] =
                static_cast<ValueId>(rng() % m.numValues());
          break;
        case 3:
          if (!op.operands.empty()) op.operands.pop_back();
          break;
        case 4:
          if (!op.regions.empty()) op.regions[rng() % op.regions.size()].ops.clear();
          break;
        case 5:
          if (!op.results.empty())
            op.results[rng() % op.results.size()] = m.newValue(randomType(rng));
          break;
        case 6:
          if (!op.operands.empty())
            op.operands[rng() % op.operands.size()] = m.newValue(randomType(rng));
          break;
      }
    }
    Status s = verifyModule(m);
    ASSERT_TRUE(s.isOk() || s.code() == StatusCode::kInvalidArgument) << s.toString();
    rejected += !s.isOk();
    EXPECT_FALSE(printModule(m).empty());
  }
  // Nearly every damaged module is caught; a few mutations are harmless.
  EXPECT_GT(rejected, 2500);
}

}  // namespace
}  // namespace jft::ir
