// Collectives over several participants in their canonical form. The layout
// rewrites are checked by running the lowered program over every rank: the
// ops before the collective and after it on the host (integer_eval.h), the
// canonical collective by runtime::CollectiveDesc's definition on flat
// buffers (chunks contiguous, senders in rank order), and the result compared
// with the StableHLO spec's definition written here with numpy-style
// split/concatenate on multi-dimensional indices, and with the spec's own
// examples. Errors name the op and its location.
#include "passes/collectives_spmd.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

#include "collective_attrs.h"
#include "integer_eval.h"
#include "pass_test_util.h"
#include "passes/pipeline.h"

namespace jft::passes {
namespace {

using namespace testing;

ir::Region binaryRegion(ir::Builder& b, OpKind kind, ElementType element) {
  auto a = b.beginRegion({tensor(element), tensor(element)});
  b.ret({b.op1(kind, {a[0], a[1]}, tensor(element))});
  return b.endRegion();
}

// main(args) = one op of `kind` (with a `region_op` region when given), at
// model.py:7:3.
ir::Module singleSpmd(OpKind kind, std::vector<Type> args, std::vector<Type> results,
                      ir::NamedAttrs attrs,
                      std::optional<OpKind> region_op = std::nullopt,
                      ElementType region_element = ElementType::I32) {
  ir::Module m;
  m.name = "spmd";
  ir::Builder b(m);
  auto values = b.beginFunction("main", args, results);
  std::vector<ir::Region> regions;
  if (region_op) regions.push_back(binaryRegion(b, *region_op, region_element));
  b.setLoc(b.fileLoc("model.py", 7, 3));
  auto out = b.op(kind, values, results, std::move(attrs), std::move(regions));
  b.setLoc(ir::kUnknownLoc);
  b.ret(out);
  b.endFunction();
  return m;
}

void lower(ir::Module& m, ParticipantGrid grid) {
  StatusOr<bool> changed = lowerCollectivesForParticipants(m, grid);
  ASSERT_TRUE(changed.isOk()) << changed.status().toString();
  EXPECT_TRUE(*changed);
  expectVerifies(m);
}

std::string refusal(ir::Module m, ParticipantGrid grid, StatusCode code) {
  StatusOr<bool> changed = lowerCollectivesForParticipants(m, grid);
  EXPECT_FALSE(changed.isOk());
  if (changed.isOk()) return "";
  EXPECT_EQ(changed.status().code(), code) << changed.status().toString();
  EXPECT_NE(changed.status().message().find("at model.py:7:3"), std::string::npos)
      << changed.status().message();
  return changed.status().message();
}

bool isCollective(OpKind kind) {
  return kind == OpKind::AllReduce || kind == OpKind::AllGather ||
         kind == OpKind::ReduceScatter || kind == OpKind::AllToAll ||
         kind == OpKind::CollectivePermute || kind == OpKind::CollectiveBroadcast;
}

std::vector<const ir::Op*> collectivesOf(const ir::Module& m) {
  std::vector<const ir::Op*> ops;
  for (const ir::Op& op : mainOf(m).body.ops)
    if (isCollective(op.kind)) ops.push_back(&op);
  return ops;
}

int64_t intAttr(const ir::Op& op, const char* name) {
  const auto* v = ir::findAttrAs<int64_t>(op.attrs, name);
  return v ? *v : -1;
}

// ---- the spec's definitions, numpy style --------------------------------

// Part `part` of `parts` equal parts of `t` along `dim` (np.split).
Tensor splitPart(const Tensor& t, int64_t parts, int64_t dim, int64_t part) {
  Tensor out{t.dims, {}};
  const int64_t size = t.dims[static_cast<size_t>(dim)] / parts;
  out.dims[static_cast<size_t>(dim)] = size;
  for (int64_t i = 0; i < count(out.dims); ++i) {
    std::vector<int64_t> index = unflatten(i, out.dims);
    index[static_cast<size_t>(dim)] += part * size;
    out.data.push_back(t.data[static_cast<size_t>(flatten(index, t.dims))]);
  }
  return out;
}

// np.concatenate(parts, dim).
Tensor concatenate(const std::vector<Tensor>& parts, int64_t dim) {
  Tensor out{parts[0].dims, {}};
  const int64_t size = parts[0].dims[static_cast<size_t>(dim)];
  out.dims[static_cast<size_t>(dim)] = size * static_cast<int64_t>(parts.size());
  for (int64_t i = 0; i < count(out.dims); ++i) {
    std::vector<int64_t> index = unflatten(i, out.dims);
    const int64_t part = index[static_cast<size_t>(dim)] / size;
    index[static_cast<size_t>(dim)] %= size;
    const Tensor& p = parts[static_cast<size_t>(part)];
    out.data.push_back(p.data[static_cast<size_t>(flatten(index, p.dims))]);
  }
  return out;
}

Tensor sum(const std::vector<Tensor>& ts) {
  Tensor out = ts[0];
  for (size_t r = 1; r < ts.size(); ++r)
    for (size_t i = 0; i < out.data.size(); ++i) out.data[i] += ts[r].data[i];
  return out;
}

// all_gather: results@p = concatenate(operands@senders, dim).
Tensor specAllGather(const std::vector<Tensor>& in, int64_t dim) {
  return concatenate(in, dim);
}

// reduce_scatter: split(all_reduce(operand), ranks, dim)[receiver].
Tensor specReduceScatter(const std::vector<Tensor>& in, int64_t dim, int64_t receiver) {
  return splitPart(sum(in), static_cast<int64_t>(in.size()), dim, receiver);
}

// all_to_all: concatenate([split(x@sender, ranks, s)[receiver] for sender], c).
Tensor specAllToAll(const std::vector<Tensor>& in, int64_t s, int64_t c,
                    int64_t receiver) {
  std::vector<Tensor> parts;
  for (const Tensor& x : in)
    parts.push_back(splitPart(x, static_cast<int64_t>(in.size()), s, receiver));
  return concatenate(parts, c);
}

// ---- running the lowered program over every rank -------------------------

// runtime::CollectiveDesc on flat buffers: every rank's input in rank order,
// the output of `rank`.
std::vector<int64_t> canonical(OpKind kind, const std::vector<std::vector<int64_t>>& in,
                               int64_t rank) {
  const size_t ranks = in.size(), count = in[0].size();
  std::vector<int64_t> out;
  switch (kind) {
    case OpKind::AllGather:
      for (const auto& x : in) out.insert(out.end(), x.begin(), x.end());
      return out;
    case OpKind::AllReduce:
    case OpKind::ReduceScatter: {
      std::vector<int64_t> total(count);
      for (const auto& x : in)
        for (size_t i = 0; i < count; ++i) total[i] += x[i];
      if (kind == OpKind::AllReduce) return total;
      const size_t chunk = count / ranks;
      return {total.begin() + static_cast<long>(rank * chunk),
              total.begin() + static_cast<long>((rank + 1) * chunk)};
    }
    case OpKind::AllToAll: {
      const size_t chunk = count / ranks;
      for (const auto& x : in)  // chunk `rank` of every sender, senders in order
        out.insert(out.end(), x.begin() + static_cast<long>(rank * chunk),
                   x.begin() + static_cast<long>((rank + 1) * chunk));
      return out;
    }
    default:
      ADD_FAILURE() << "no canonical reference for " << ir::opKindName(kind);
      return out;
  }
}

// Runs main (one argument, one canonical collective) on each rank's input.
std::vector<Tensor> runOverRanks(const ir::Module& lowered,
                                 const std::vector<Tensor>& in) {
  const ir::Function& f = mainOf(lowered);
  size_t at = f.body.ops.size();
  for (size_t i = 0; i < f.body.ops.size(); ++i)
    if (isCollective(f.body.ops[i].kind)) at = i;
  EXPECT_LT(at, f.body.ops.size());
  if (at == f.body.ops.size()) return {};
  const ir::Op& op = f.body.ops[at];
  // Before: main's ops up to the collective, returning its operand.
  ir::Module before = lowered;
  ir::Function& pre = before.functions[0];
  pre.body.ops.resize(at);
  ir::Op ret;
  ret.kind = OpKind::Return;
  ret.operands = {op.operands[0]};
  pre.body.ops.push_back(ret);
  pre.result_types = {lowered.typeOf(op.operands[0])};
  // After: the rest, the collective's result an extra argument.
  ir::Module after = lowered;
  ir::Function& post = after.functions[0];
  post.body.args.push_back(op.results[0]);
  post.body.ops.erase(post.body.ops.begin(), post.body.ops.begin() + long(at) + 1);
  std::vector<std::vector<int64_t>> sent;
  for (const Tensor& x : in) sent.push_back(evaluate(before, {x})[0].data);
  const std::vector<int64_t> dims = lowered.typeOf(op.results[0]).dims;
  std::vector<Tensor> out;
  for (size_t r = 0; r < in.size(); ++r) {
    Tensor received{dims, canonical(op.kind, sent, static_cast<int64_t>(r))};
    EXPECT_EQ(static_cast<int64_t>(received.data.size()), count(dims));
    out.push_back(evaluate(after, {in[r], received})[0]);
  }
  return out;
}

// Distinct values per rank and position: rank * 1000 + position.
std::vector<Tensor> inputs(int64_t ranks, std::vector<int64_t> dims) {
  std::vector<Tensor> in;
  for (int64_t r = 0; r < ranks; ++r) {
    Tensor t{dims, {}};
    for (int64_t i = 0; i < count(dims); ++i) t.data.push_back(r * 1000 + i);
    in.push_back(t);
  }
  return in;
}

// ---- layouts -------------------------------------------------------------

TEST(CollectivesSpmd, AllGatherOnDimOneIsTheSpecExample) {
  // The spec's all_gather example: two replicas, all_gather_dim 1.
  ir::Module m = singleSpmd(OpKind::AllGather, {i32({2, 2})}, {i32({2, 4})},
                            with(groups(1, 2, {0, 1}), "all_gather_dim", int64_t{1}));
  lower(m, {2, 1});
  auto ops = collectivesOf(m);
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(intAttr(*ops[0], "all_gather_dim"), 0);
  EXPECT_EQ(m.typeOf(ops[0]->operands[0]), i32({2, 2}));  // transposed [dim1, dim0]
  EXPECT_EQ(m.typeOf(ops[0]->results[0]), i32({4, 2}));
  auto out = runOverRanks(m, {{{2, 2}, {1, 2, 3, 4}}, {{2, 2}, {5, 6, 7, 8}}});
  ASSERT_EQ(out.size(), 2u);
  for (const Tensor& t : out) {
    EXPECT_EQ(t.dims, (std::vector<int64_t>{2, 4}));
    EXPECT_EQ(t.data, (std::vector<int64_t>{1, 2, 5, 6, 3, 4, 7, 8}));
  }
}

TEST(CollectivesSpmd, AllGatherMatchesConcatenateOnEveryDim) {
  for (int64_t dim = 0; dim < 3; ++dim) {
    std::vector<int64_t> dims{2, 3, 2}, gathered = dims;
    gathered[static_cast<size_t>(dim)] *= 4;
    ir::Module m =
        singleSpmd(OpKind::AllGather, {i32(dims)}, {i32(gathered)},
                   spmd(with(groups(1, 4, {0, 1, 2, 3}), "all_gather_dim", dim)));
    lower(m, {1, 4});
    auto in = inputs(4, dims);
    auto out = runOverRanks(m, in);
    ASSERT_EQ(out.size(), 4u);
    for (const Tensor& t : out) {
      EXPECT_EQ(t.dims, gathered);
      EXPECT_EQ(t.data, specAllGather(in, dim).data) << "dim " << dim;
    }
  }
}

TEST(CollectivesSpmd, ReduceScatterOnDimOneIsTheSpecExample) {
  ir::Module m = singleSpmd(OpKind::ReduceScatter, {i32({2, 4})}, {i32({2, 2})},
                            with(groups(1, 2, {0, 1}), "scatter_dimension", int64_t{1}),
                            OpKind::Add);
  lower(m, {2, 1});
  auto ops = collectivesOf(m);
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(intAttr(*ops[0], "scatter_dimension"), 0);
  EXPECT_EQ(m.typeOf(ops[0]->results[0]), i32({2, 2}));
  auto out = runOverRanks(
      m, {{{2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}}, {{2, 4}, {9, 10, 11, 12, 13, 14, 15, 16}}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].data, (std::vector<int64_t>{10, 12, 18, 20}));
  EXPECT_EQ(out[1].data, (std::vector<int64_t>{14, 16, 22, 24}));
}

TEST(CollectivesSpmd, ReduceScatterMatchesTheSpecOnEveryDim) {
  for (int64_t dim = 0; dim < 3; ++dim) {
    std::vector<int64_t> dims{4, 2, 4}, scattered = dims;
    scattered[static_cast<size_t>(dim)] /= 2;
    ir::Module m = singleSpmd(OpKind::ReduceScatter, {i32(dims)}, {i32(scattered)},
                              spmd(with(groups(1, 2, {0, 1}), "scatter_dimension", dim)),
                              OpKind::Add);
    lower(m, {1, 2});
    auto in = inputs(2, dims);
    auto out = runOverRanks(m, in);
    ASSERT_EQ(out.size(), 2u);
    for (int64_t r = 0; r < 2; ++r)
      EXPECT_EQ(out[static_cast<size_t>(r)].data, specReduceScatter(in, dim, r).data)
          << "dim " << dim << " rank " << r;
  }
}

TEST(CollectivesSpmd, AllToAllIsTheSpecExample) {
  // split_dimension 1, concat_dimension 0, two replicas.
  ir::NamedAttrs attrs = groups(1, 2, {0, 1});
  attrs = with(attrs, "split_dimension", int64_t{1});
  attrs = with(attrs, "concat_dimension", int64_t{0});
  attrs = with(attrs, "split_count", int64_t{2});
  ir::Module m = singleSpmd(OpKind::AllToAll, {i32({2, 4})}, {i32({4, 2})}, attrs);
  lower(m, {2, 1});
  auto ops = collectivesOf(m);
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(intAttr(*ops[0], "split_dimension"), 0);
  EXPECT_EQ(intAttr(*ops[0], "concat_dimension"), 0);
  EXPECT_EQ(intAttr(*ops[0], "split_count"), 2);
  // [2, 4] -> [2, 2 (count), 2] -> [2 (count), 2, 2]
  EXPECT_EQ(m.typeOf(ops[0]->operands[0]), i32({2, 2, 2}));
  auto out = runOverRanks(
      m, {{{2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}}, {{2, 4}, {9, 10, 11, 12, 13, 14, 15, 16}}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(out[0].data, (std::vector<int64_t>{1, 2, 5, 6, 9, 10, 13, 14}));
  EXPECT_EQ(out[1].data, (std::vector<int64_t>{3, 4, 7, 8, 11, 12, 15, 16}));
}

TEST(CollectivesSpmd, AllToAllMatchesTheSpecForEverySplitAndConcatDim) {
  const std::vector<int64_t> dims{4, 2, 4};
  for (int64_t split = 0; split < 3; ++split) {
    for (int64_t concat = 0; concat < 3; ++concat) {
      if (dims[static_cast<size_t>(split)] % 2 != 0) continue;
      std::vector<int64_t> result = dims;
      result[static_cast<size_t>(split)] /= 2;
      result[static_cast<size_t>(concat)] *= 2;
      ir::NamedAttrs attrs = groups(1, 2, {0, 1});
      attrs = with(attrs, "split_dimension", split);
      attrs = with(attrs, "concat_dimension", concat);
      attrs = with(attrs, "split_count", int64_t{2});
      attrs.push_back({"channel_handle", ir::ChannelHandle{3, 1}});  // cross_partition
      ir::Module m = singleSpmd(OpKind::AllToAll, {i32(dims)}, {i32(result)}, attrs);
      lower(m, {1, 2});
      auto in = inputs(2, dims);
      auto out = runOverRanks(m, in);
      ASSERT_EQ(out.size(), 2u);
      for (int64_t r = 0; r < 2; ++r) {
        EXPECT_EQ(out[static_cast<size_t>(r)].dims, result);
        EXPECT_EQ(out[static_cast<size_t>(r)].data,
                  specAllToAll(in, split, concat, r).data)
            << "split " << split << " concat " << concat << " rank " << r;
      }
    }
  }
}

TEST(CollectivesSpmd, AllToAllOverFourRanks) {
  // split 2 of [2, 3, 8] into 4 parts, concatenated along dim 1.
  ir::NamedAttrs attrs;
  attrs = with(attrs, "split_dimension", int64_t{2});
  attrs = with(attrs, "concat_dimension", int64_t{1});
  attrs = with(attrs, "split_count", int64_t{4});
  ir::Module m = singleSpmd(OpKind::AllToAll, {i32({2, 3, 8})}, {i32({2, 12, 2})}, attrs);
  lower(m, {4, 1});  // no groups: every replica
  auto in = inputs(4, {2, 3, 8});
  auto out = runOverRanks(m, in);
  ASSERT_EQ(out.size(), 4u);
  for (int64_t r = 0; r < 4; ++r)
    EXPECT_EQ(out[static_cast<size_t>(r)].data, specAllToAll(in, 2, 1, r).data)
        << "rank " << r;
}

// ---- operands and element types ------------------------------------------

TEST(CollectivesSpmd, TupleAllReduceIsOneOpPerOperandInTheRegionType) {
  // psum of (i8[4], i32[2x2]) with an i32 region: operand 0 is converted to
  // i32 first (to_destination_type).
  ir::Module m = singleSpmd(OpKind::AllReduce, {i8({4}), i32({2, 2})},
                            {i32({4}), i32({2, 2})}, groups(1, 2, {0, 1}), OpKind::Add);
  lower(m, {2, 1});
  auto ops = collectivesOf(m);
  ASSERT_EQ(ops.size(), 2u);
  for (const ir::Op* op : ops) {
    EXPECT_EQ(op->operands.size(), 1u);
    EXPECT_EQ(op->kind, OpKind::AllReduce);
    ASSERT_EQ(op->regions.size(), 1u);
    EXPECT_EQ(op->regions[0].ops[0].kind, OpKind::Add);
  }
  EXPECT_EQ(m.typeOf(ops[0]->operands[0]), i32({4}));
  const ir::Op* convert = definer(mainOf(m), ops[0]->operands[0]);
  ASSERT_NE(convert, nullptr);
  EXPECT_EQ(convert->kind, OpKind::Convert);
  EXPECT_EQ(returned(mainOf(m))[0], ops[0]->results[0]);
  EXPECT_EQ(returned(mainOf(m))[1], ops[1]->results[0]);
}

TEST(CollectivesSpmd, CrossReplicaSumIsAnAddAllReduce) {
  ir::Module m =
      singleSpmd(OpKind::CrossReplicaSum, {f32({3})}, {f32({3})}, groups(1, 2, {0, 1}));
  lower(m, {2, 1});
  auto ops = collectivesOf(m);
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0]->kind, OpKind::AllReduce);
  EXPECT_EQ(ops[0]->regions[0].ops[0].kind, OpKind::Add);
}

TEST(CollectivesSpmd, SixteenBitIntegersAreSummedInThirtyTwoBits) {
  const Type i16 = tensor(ElementType::I16, {4});
  ir::Module m = singleSpmd(OpKind::AllReduce, {i16}, {i16}, groups(1, 2, {0, 1}),
                            OpKind::Add, ElementType::I16);
  lower(m, {2, 1});
  auto ops = collectivesOf(m);
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(m.typeOf(ops[0]->operands[0]), i32({4}));
  // 30000 + 30000 wraps in i16 exactly as the spec's i16 add does.
  auto out = runOverRanks(m, {{{4}, {30000, -1, 7, -32768}}, {{4}, {30000, 1, -9, -1}}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].data, (std::vector<int64_t>{wrap(60000, ElementType::I16), 0, -2,
                                               wrap(-32769, ElementType::I16)}));
}

TEST(CollectivesSpmd, SixteenBitIntegersAreGatheredInThirtyTwoBits) {
  const Type u16 = tensor(ElementType::U16, {2});
  ir::Module m = singleSpmd(OpKind::AllGather, {u16}, {tensor(ElementType::U16, {4})},
                            with(groups(1, 2, {0, 1}), "all_gather_dim", int64_t{0}));
  lower(m, {2, 1});
  auto ops = collectivesOf(m);
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(m.typeOf(ops[0]->operands[0]), tensor(ElementType::U32, {2}));
  auto out = runOverRanks(m, {{{2}, {65535, 1}}, {{2}, {2, 40000}}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].data, (std::vector<int64_t>{65535, 1, 2, 40000}));
}

TEST(CollectivesSpmd, PredReductionsAreMinimumOrMaximum) {
  // On booleans add and or are "any", multiply and and are "all".
  for (auto [region, expected] : {std::pair{OpKind::And, OpKind::Minimum},
                                  std::pair{OpKind::Multiply, OpKind::Minimum},
                                  std::pair{OpKind::Or, OpKind::Maximum},
                                  std::pair{OpKind::Add, OpKind::Maximum}}) {
    ir::Module m = singleSpmd(OpKind::AllReduce, {pred({3})}, {pred({3})},
                              spmd(groups(1, 2, {0, 1})), region, ElementType::PRED);
    lower(m, {1, 2});
    auto ops = collectivesOf(m);
    ASSERT_EQ(ops.size(), 1u);
    EXPECT_EQ(m.typeOf(ops[0]->operands[0]), pred({3}));
    EXPECT_EQ(ops[0]->regions[0].ops[0].kind, expected) << ir::opKindName(region);
  }
}

TEST(CollectivesSpmd, PredXorIsRefused) {
  std::string message =
      refusal(singleSpmd(OpKind::AllReduce, {pred({3})}, {pred({3})},
                         groups(1, 2, {0, 1}), OpKind::Xor, ElementType::PRED),
              {2, 1}, StatusCode::kUnimplemented);
  EXPECT_NE(message.find("all_reduce at model.py:7:3"), std::string::npos) << message;
  EXPECT_NE(message.find("xor"), std::string::npos) << message;
}

TEST(CollectivesSpmd, ComplexSumsStayComplexAndProductsAreRefused) {
  const Type c64 = tensor(ElementType::C64, {2});
  ir::Module m = singleSpmd(OpKind::AllReduce, {c64}, {c64}, groups(1, 2, {0, 1}),
                            OpKind::Add, ElementType::C64);
  lower(m, {2, 1});
  ASSERT_EQ(collectivesOf(m).size(), 1u);
  EXPECT_EQ(m.typeOf(collectivesOf(m)[0]->operands[0]), c64);
  for (OpKind op : {OpKind::Multiply, OpKind::Maximum}) {
    std::string message = refusal(singleSpmd(OpKind::AllReduce, {c64}, {c64},
                                             groups(1, 2, {0, 1}), op, ElementType::C64),
                                  {2, 1}, StatusCode::kUnimplemented);
    EXPECT_NE(message.find("all_reduce at model.py:7:3: a " +
                           std::string(ir::opKindName(op)) + " of complex<f32>"),
              std::string::npos)
        << message;
  }
  // Moving complex values needs nothing.
  ir::Module gather =
      singleSpmd(OpKind::AllGather, {c64}, {tensor(ElementType::C64, {4})},
                 with(groups(1, 2, {0, 1}), "all_gather_dim", int64_t{0}));
  lower(gather, {2, 1});
  EXPECT_EQ(gather.typeOf(collectivesOf(gather)[0]->operands[0]), c64);
}

TEST(CollectivesSpmd, NarrowFloatsTakeMaximumInF32AndRefuseSums) {
  const Type f8 = tensor(ElementType::F8E4M3FNUZ, {2});
  ir::Module m = singleSpmd(OpKind::AllReduce, {f8}, {f8}, groups(1, 2, {0, 1}),
                            OpKind::Maximum, ElementType::F8E4M3FNUZ);
  lower(m, {2, 1});
  EXPECT_EQ(m.typeOf(collectivesOf(m)[0]->operands[0]), f32({2}));
  std::string message =
      refusal(singleSpmd(OpKind::AllReduce, {f8}, {f8}, groups(1, 2, {0, 1}), OpKind::Add,
                         ElementType::F8E4M3FNUZ),
              {2, 1}, StatusCode::kUnimplemented);
  EXPECT_NE(message.find("NCCL cannot sum f8E4M3FNUZ"), std::string::npos) << message;
}

TEST(CollectivesSpmd, AnUnsupportedRegionNamesTheOp) {
  std::string message = refusal(singleSpmd(OpKind::AllReduce, {i32({2})}, {i32({2})},
                                           groups(1, 2, {0, 1}), OpKind::Subtract),
                                {2, 1}, StatusCode::kUnimplemented);
  EXPECT_NE(message.find("all_reduce at model.py:7:3: its reduction region"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("subtract"), std::string::npos) << message;
  // A bitwise and of integers has no NCCL reduction either.
  message =
      refusal(singleSpmd(OpKind::ReduceScatter, {i32({2})}, {i32({1})},
                         with(groups(1, 2, {0, 1}), "scatter_dimension", int64_t{0}),
                         OpKind::And),
              {2, 1}, StatusCode::kUnimplemented);
  EXPECT_NE(message.find("reduce_scatter at model.py:7:3"), std::string::npos) << message;
}

// ---- groups and shapes ---------------------------------------------------

TEST(CollectivesSpmd, BadGroupsAreInvalidArguments) {
  auto psum = [](ir::NamedAttrs attrs) {
    return singleSpmd(OpKind::AllReduce, {i32({2})}, {i32({2})}, std::move(attrs),
                      OpKind::Add);
  };
  std::string m1 =
      refusal(psum(groups(1, 2, {0, 2})), {2, 1}, StatusCode::kInvalidArgument);
  EXPECT_NE(m1.find("name replica 2, outside [0, 2)"), std::string::npos) << m1;
  std::string m2 =
      refusal(psum(groups(2, 1, {0, 0})), {2, 1}, StatusCode::kInvalidArgument);
  EXPECT_NE(m2.find("twice"), std::string::npos) << m2;
  std::string m3 = refusal(psum(groups(1, 1, {0})), {2, 1}, StatusCode::kInvalidArgument);
  EXPECT_NE(m3.find("leave out replica 1"), std::string::npos) << m3;
  // use_global_device_ids without a channel (spec C4).
  std::string m4 =
      refusal(psum(with(groups(1, 2, {0, 1}), "use_global_device_ids", ir::UnitAttr{})),
              {2, 1}, StatusCode::kInvalidArgument);
  EXPECT_NE(m4.find("needs a positive channel_id"), std::string::npos) << m4;
  // Flattened ids range over replicas x partitions.
  std::string m5 = refusal(psum(spmd(groups(1, 4, {0, 1, 2, 3}))), {1, 2},
                           StatusCode::kInvalidArgument);
  EXPECT_NE(m5.find("flattened id 2"), std::string::npos) << m5;
}

TEST(CollectivesSpmd, PaddedUnevenGroupsSumButDoNotGather) {
  // JAX pads [[0, 1], [2]] to [[0, 1], [2, -1]].
  ir::Module psum = singleSpmd(OpKind::AllReduce, {i32({2})}, {i32({2})},
                               groups(2, 2, {0, 1, 2, -1}), OpKind::Add);
  lower(psum, {3, 1});
  std::string message =
      refusal(singleSpmd(OpKind::AllGather, {i32({2})}, {i32({4})},
                         with(groups(2, 2, {0, 1, 2, -1}), "all_gather_dim", int64_t{0})),
              {3, 1}, StatusCode::kInvalidArgument);
  EXPECT_NE(message.find("differ in size"), std::string::npos) << message;
}

TEST(CollectivesSpmd, GroupSizesFollowTheMode) {
  // channel, no global ids: cross_replica_and_partition, a group spans every
  // partition of its replicas: [[0, 1]] over 2 x 2 gathers 4 parts.
  ir::NamedAttrs attrs = with(groups(1, 2, {0, 1}), "all_gather_dim", int64_t{0});
  attrs.push_back({"channel_handle", ir::ChannelHandle{2, 1}});
  ir::Module m = singleSpmd(OpKind::AllGather, {i32({2})}, {i32({8})}, attrs);
  lower(m, {2, 2});
  ir::Module wrong = singleSpmd(OpKind::AllGather, {i32({2})}, {i32({4})}, attrs);
  std::string message = refusal(wrong, {2, 2}, StatusCode::kInvalidArgument);
  EXPECT_NE(message.find("result 0 is tensor<4xi32>, but over process groups of 4 "
                         "(cross_replica_and_partition) it is tensor<8xi32>"),
            std::string::npos)
      << message;
  // No channel: cross_replica, replica groups [[0], [1]] of one process.
  ir::Module single_replica =
      singleSpmd(OpKind::AllGather, {i32({2})}, {i32({2})},
                 with(groups(2, 1, {0, 1}), "all_gather_dim", int64_t{0}));
  lower(single_replica, {2, 2});
}

TEST(CollectivesSpmd, SplitCountMustBeTheGroupSize) {
  ir::NamedAttrs attrs;
  attrs = with(attrs, "split_dimension", int64_t{0});
  attrs = with(attrs, "concat_dimension", int64_t{0});
  attrs = with(attrs, "split_count", int64_t{2});
  std::string message =
      refusal(singleSpmd(OpKind::AllToAll, {i32({4})}, {i32({4})}, attrs), {4, 1},
              StatusCode::kInvalidArgument);
  EXPECT_NE(message.find("split_count 2 is not the size of its process groups, 4"),
            std::string::npos)
      << message;
}

TEST(CollectivesSpmd, PermuteAndBroadcastKeepTheirOperand) {
  ir::NamedAttrs pairs = {
      {"source_target_pairs",
       ir::denseFromValues(tensor(ElementType::I64, {2, 2}), {0, 1, 1, 0})},
      {"channel_handle", ir::ChannelHandle{4, 1}}};
  ir::Module permute =
      singleSpmd(OpKind::CollectivePermute, {f32({3})}, {f32({3})}, pairs);
  lower(permute, {1, 2});
  ASSERT_EQ(collectivesOf(permute).size(), 1u);
  EXPECT_EQ(collectivesOf(permute)[0]->operands[0], mainOf(permute).body.args[0]);

  ir::NamedAttrs twice = {
      {"source_target_pairs",
       ir::denseFromValues(tensor(ElementType::I64, {2, 2}), {0, 1, 0, 0})}};
  std::string message =
      refusal(singleSpmd(OpKind::CollectivePermute, {f32({3})}, {f32({3})}, twice),
              {2, 1}, StatusCode::kInvalidArgument);
  EXPECT_NE(message.find("a source or a target twice"), std::string::npos) << message;

  ir::Module broadcast = singleSpmd(OpKind::CollectiveBroadcast, {f32({3})}, {f32({3})},
                                    groups(1, 2, {1, 0}));
  lower(broadcast, {2, 1});
  std::string dynamic =
      refusal(singleSpmd(OpKind::CollectiveBroadcast, {f32({3}), i32({1})}, {f32({3})},
                         with(groups(1, 2, {0, 1}), "has_dynamic_root", ir::UnitAttr{})),
              {2, 1}, StatusCode::kUnimplemented);
  EXPECT_NE(dynamic.find("has_dynamic_root"), std::string::npos) << dynamic;
}

TEST(CollectivesSpmd, PipelineRunsItForSeveralParticipants) {
  PipelineOptions options;
  options.verify = true;
  options.grid = {1, 2};
  ir::Module m =
      singleSpmd(OpKind::AllGather, {i32({2, 3})}, {i32({2, 6})},
                 spmd(with(groups(1, 2, {0, 1}), "all_gather_dim", int64_t{1})));
  StatusOr<PipelineReport> report = runPasses(m, options);
  ASSERT_TRUE(report.isOk()) << report.status().toString();
  const auto collectives =
      std::find_if(report->passes.begin(), report->passes.end(),
                   [](const PassRecord& record) { return record.pass == "collectives"; });
  ASSERT_NE(collectives, report->passes.end());
  EXPECT_TRUE(collectives->changed);
  auto ops = collectivesOf(m);
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(intAttr(*ops[0], "all_gather_dim"), 0);
}

}  // namespace
}  // namespace jft::passes
