// CollectiveDesc: its text, validation and buffer sizes against values worked
// by hand from StableHLO's definitions (runtime/collective.h), with the op's
// dimension outermost.
#include <gtest/gtest.h>

#include "runtime/collective.h"

namespace jft::runtime {
namespace {

CollectiveDesc desc(CollectiveKind kind, CollectiveType type, int64_t ranks,
                    int64_t count) {
  CollectiveDesc d;
  d.kind = kind;
  d.type = type;
  d.ranks = ranks;
  d.count = count;
  return d;
}

bool mentions(const Status& status, const std::string& text) {
  return status.message().find(text) != std::string::npos;
}

TEST(CollectiveDesc, TextNamesKindReductionTypeCountAndRanks) {
  CollectiveDesc d = desc(CollectiveKind::kAllReduce, CollectiveType::kF32, 4, 1024);
  EXPECT_EQ(collectiveText(d), "all_reduce sum f32 x1024 over 4 ranks");
  d.reduction = CollectiveReduction::kMax;
  d.kind = CollectiveKind::kReduceScatter;
  EXPECT_EQ(collectiveText(d), "reduce_scatter max f32 x1024 over 4 ranks");
  // Only the reducing kinds show their reduction.
  EXPECT_EQ(collectiveText(desc(CollectiveKind::kAllGather, CollectiveType::kBF16, 1, 3)),
            "all_gather bf16 x3 over 1 rank");
  CollectiveDesc p = desc(CollectiveKind::kCollectivePermute, CollectiveType::kS32, 2, 8);
  p.pairs = {{0, 1}, {1, 0}};
  EXPECT_EQ(collectiveText(p),
            "collective_permute s32 x8 over 2 ranks pairs {0->1, 1->0}");
  p.pairs.clear();
  EXPECT_EQ(collectiveText(p), "collective_permute s32 x8 over 2 ranks pairs {}");
  EXPECT_EQ(collectiveText(desc(CollectiveKind::kCollectiveBroadcast,
                                CollectiveType::kF8E4M3FN, 8, 16)),
            "collective_broadcast f8E4M3FN x16 over 8 ranks");
  EXPECT_EQ(collectiveText(desc(CollectiveKind::kAllToAll, CollectiveType::kU64, 2, 4)),
            "all_to_all u64 x4 over 2 ranks");
}

TEST(CollectiveDesc, NamesAreStableHloSpellings) {
  EXPECT_STREQ(collectiveKindName(CollectiveKind::kCollectivePermute),
               "collective_permute");
  EXPECT_STREQ(collectiveTypeName(CollectiveType::kS8), "s8");
  EXPECT_STREQ(collectiveTypeName(CollectiveType::kU32), "u32");
  EXPECT_STREQ(collectiveTypeName(CollectiveType::kF16), "f16");
  EXPECT_STREQ(collectiveTypeName(CollectiveType::kF64), "f64");
  EXPECT_STREQ(collectiveTypeName(CollectiveType::kF8E5M2), "f8E5M2");
  EXPECT_STREQ(collectiveReductionName(CollectiveReduction::kProd), "prod");
  EXPECT_STREQ(collectiveReductionName(CollectiveReduction::kMin), "min");
  EXPECT_TRUE(collectiveReduces(CollectiveKind::kAllReduce));
  EXPECT_TRUE(collectiveReduces(CollectiveKind::kReduceScatter));
  EXPECT_FALSE(collectiveReduces(CollectiveKind::kAllGather));
  EXPECT_FALSE(collectiveReduces(CollectiveKind::kAllToAll));
  EXPECT_FALSE(collectiveReduces(CollectiveKind::kCollectivePermute));
  EXPECT_FALSE(collectiveReduces(CollectiveKind::kCollectiveBroadcast));
}

TEST(CollectiveDesc, ElementBytes) {
  EXPECT_EQ(collectiveElementBytes(CollectiveType::kS8), 1);
  EXPECT_EQ(collectiveElementBytes(CollectiveType::kU8), 1);
  EXPECT_EQ(collectiveElementBytes(CollectiveType::kF8E4M3FN), 1);
  EXPECT_EQ(collectiveElementBytes(CollectiveType::kF8E5M2), 1);
  EXPECT_EQ(collectiveElementBytes(CollectiveType::kF16), 2);
  EXPECT_EQ(collectiveElementBytes(CollectiveType::kBF16), 2);
  EXPECT_EQ(collectiveElementBytes(CollectiveType::kS32), 4);
  EXPECT_EQ(collectiveElementBytes(CollectiveType::kU32), 4);
  EXPECT_EQ(collectiveElementBytes(CollectiveType::kF32), 4);
  EXPECT_EQ(collectiveElementBytes(CollectiveType::kS64), 8);
  EXPECT_EQ(collectiveElementBytes(CollectiveType::kU64), 8);
  EXPECT_EQ(collectiveElementBytes(CollectiveType::kF64), 8);
}

// Per rank: all_gather of bf16[6] over 4 ranks gives bf16[4, 6] = 24
// elements; reduce_scatter of f64[12] over 3 ranks gives f64[4]; the others
// keep the input's shape.
TEST(CollectiveDesc, BufferSizesPerRank) {
  CollectiveDesc g = desc(CollectiveKind::kAllGather, CollectiveType::kBF16, 4, 6);
  EXPECT_EQ(collectiveInputCount(g), 6);
  EXPECT_EQ(collectiveOutputCount(g), 24);
  EXPECT_EQ(collectiveInputBytes(g), 12u);
  EXPECT_EQ(collectiveOutputBytes(g), 48u);

  CollectiveDesc rs = desc(CollectiveKind::kReduceScatter, CollectiveType::kF64, 3, 12);
  EXPECT_EQ(collectiveOutputCount(rs), 4);
  EXPECT_EQ(collectiveInputBytes(rs), 96u);
  EXPECT_EQ(collectiveOutputBytes(rs), 32u);

  CollectiveDesc a2a = desc(CollectiveKind::kAllToAll, CollectiveType::kS8, 4, 8);
  EXPECT_EQ(collectiveInputBytes(a2a), 8u);
  EXPECT_EQ(collectiveOutputBytes(a2a), 8u);

  CollectiveDesc ar = desc(CollectiveKind::kAllReduce, CollectiveType::kS64, 2, 5);
  EXPECT_EQ(collectiveInputBytes(ar), 40u);
  EXPECT_EQ(collectiveOutputBytes(ar), 40u);

  CollectiveDesc perm =
      desc(CollectiveKind::kCollectivePermute, CollectiveType::kU64, 3, 3);
  EXPECT_EQ(collectiveOutputBytes(perm), 24u);
  CollectiveDesc bc =
      desc(CollectiveKind::kCollectiveBroadcast, CollectiveType::kF16, 2, 7);
  EXPECT_EQ(collectiveInputBytes(bc), 14u);
  EXPECT_EQ(collectiveOutputBytes(bc), 14u);
}

TEST(CollectiveDesc, CountZeroIsEmptyAndValid) {
  for (CollectiveKind kind :
       {CollectiveKind::kAllReduce, CollectiveKind::kAllGather,
        CollectiveKind::kReduceScatter, CollectiveKind::kAllToAll,
        CollectiveKind::kCollectivePermute, CollectiveKind::kCollectiveBroadcast}) {
    CollectiveDesc d = desc(kind, CollectiveType::kF32, 4, 0);
    EXPECT_TRUE(validateCollective(d).isOk()) << collectiveText(d);
    EXPECT_TRUE(collectiveIsEmpty(d));
    EXPECT_EQ(collectiveInputBytes(d), 0u);
    EXPECT_EQ(collectiveOutputBytes(d), 0u);
  }
  EXPECT_FALSE(
      collectiveIsEmpty(desc(CollectiveKind::kAllReduce, CollectiveType::kF32, 1, 1)));
}

TEST(CollectiveDesc, ValidationNamesTheDescription) {
  Status s =
      validateCollective(desc(CollectiveKind::kAllReduce, CollectiveType::kF32, 0, 4));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(mentions(s, "all_reduce sum f32 x4 over 0 ranks")) << s.message();
  EXPECT_TRUE(mentions(s, "at least one rank"));

  s = validateCollective(desc(CollectiveKind::kAllGather, CollectiveType::kF32, 2, -1));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(mentions(s, "negative"));

  // reduce_scatter and all_to_all split the input in `ranks` equal chunks.
  s = validateCollective(
      desc(CollectiveKind::kReduceScatter, CollectiveType::kF32, 4, 10));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(mentions(s, "reduce_scatter sum f32 x10 over 4 ranks")) << s.message();
  EXPECT_TRUE(mentions(s, "not divisible"));
  EXPECT_FALSE(
      validateCollective(desc(CollectiveKind::kAllToAll, CollectiveType::kF32, 4, 6))
          .isOk());
  EXPECT_TRUE(
      validateCollective(desc(CollectiveKind::kAllToAll, CollectiveType::kF32, 4, 8))
          .isOk());
  // all_gather and all_reduce need no divisibility.
  EXPECT_TRUE(
      validateCollective(desc(CollectiveKind::kAllGather, CollectiveType::kF32, 4, 3))
          .isOk());
  EXPECT_TRUE(
      validateCollective(desc(CollectiveKind::kAllReduce, CollectiveType::kF32, 3, 7))
          .isOk());

  CollectiveDesc withPairs = desc(CollectiveKind::kAllReduce, CollectiveType::kF32, 2, 2);
  withPairs.pairs = {{0, 1}};
  s = validateCollective(withPairs);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(mentions(s, "only collective_permute"));
}

TEST(CollectiveDesc, PermutePairsFollowTheSpecConstraints) {
  CollectiveDesc p = desc(CollectiveKind::kCollectivePermute, CollectiveType::kF32, 3, 4);
  p.pairs = {{0, 1}, {1, 2}, {2, 0}};
  EXPECT_TRUE(validateCollective(p).isOk());
  p.pairs = {{1, 1}};  // a rank may send to itself
  EXPECT_TRUE(validateCollective(p).isOk());
  p.pairs = {};  // nobody sends: every output is zeros
  EXPECT_TRUE(validateCollective(p).isOk());

  p.pairs = {{0, 3}};
  Status s = validateCollective(p);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(mentions(s, "pair 0->3 names a rank outside [0, 3)")) << s.message();
  p.pairs = {{-1, 0}};
  EXPECT_FALSE(validateCollective(p).isOk());
  p.pairs = {{0, 1}, {0, 2}};
  s = validateCollective(p);
  EXPECT_TRUE(mentions(s, "rank 0 is the source of two pairs")) << s.message();
  p.pairs = {{0, 2}, {1, 2}};
  s = validateCollective(p);
  EXPECT_TRUE(mentions(s, "rank 2 is the target of two pairs")) << s.message();
}

TEST(CollectiveDesc, PermutePeers) {
  CollectiveDesc p = desc(CollectiveKind::kCollectivePermute, CollectiveType::kF32, 4, 4);
  p.pairs = {{0, 2}, {2, 3}};
  EXPECT_EQ(permuteTargetOf(p, 0), 2);
  EXPECT_EQ(permuteSourceOf(p, 0), -1);
  EXPECT_EQ(permuteTargetOf(p, 1), -1);
  EXPECT_EQ(permuteSourceOf(p, 1), -1);
  EXPECT_EQ(permuteTargetOf(p, 2), 3);
  EXPECT_EQ(permuteSourceOf(p, 2), 0);
  EXPECT_EQ(permuteTargetOf(p, 3), -1);
  EXPECT_EQ(permuteSourceOf(p, 3), 2);
}

}  // namespace
}  // namespace jft::runtime
