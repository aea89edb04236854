// The NCCL runner and communicators over a fake NCCL function table that
// records each call and its arguments: which calls each kind makes, chunk
// offsets of all_to_all and permute, zero fill of ranks that receive
// nothing, the group around every collective, and every ncclResult_t
// becoming a Status naming the collective and the call. No GPU, no NCCL.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "runtime/collective.h"
#include "runtime/gpu/nccl.h"

namespace jft::runtime::gpu {
namespace {

struct Call {
  std::string name;
  uint64_t send = 0, recv = 0;  // buffer addresses (0 where the call has none)
  size_t count = 0;
  int type = -1, op = -1, peer = -1;  // peer: the root for broadcast
  ncclComm_t comm = nullptr;
  CUstream stream = nullptr;
  bool operator==(const Call&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Call& c) {
  return os << c.name << "(send " << c.send << ", recv " << c.recv << ", count "
            << c.count << ", type " << c.type << ", op " << c.op << ", peer " << c.peer
            << ", comm " << c.comm << ", stream " << c.stream << ")";
}

// The fake's state: the calls made, and results to return by call name.
struct Fake {
  std::vector<Call> calls;
  std::map<std::string, ncclResult_t> fail;
  ncclResult_t asyncError = kNcclSuccess;
  ncclUniqueId lastId{};
  int lastRank = -1, lastSize = -1;
  std::vector<int> lastOrdinals;
};
Fake* fake = nullptr;

ncclResult_t record(Call call) {
  fake->calls.push_back(call);
  auto it = fake->fail.find(call.name);
  return it == fake->fail.end() ? kNcclSuccess : it->second;
}

uint64_t address(const void* p) {
  return reinterpret_cast<uintptr_t>(p);
}

ncclComm_t fakeComm(int rank) {
  return reinterpret_cast<ncclComm_t>(static_cast<uintptr_t>(0x1000 + 0x10 * rank));
}

CUstream fakeStream(int rank) {
  return reinterpret_cast<CUstream>(static_cast<uintptr_t>(0x9000 + 0x10 * rank));
}

Nccl fakeNccl() {
  Nccl n;
  n.library_name = "fake";
  n.getVersion = [](int* v) {
    *v = 22800;
    return kNcclSuccess;
  };
  n.getErrorString = [](ncclResult_t r) -> const char* {
    return r == kNcclInvalidArgument ? "fake: invalid argument" : "fake: failure";
  };
  n.getUniqueId = [](ncclUniqueId* id) {
    std::memset(id->internal, 7, sizeof(id->internal));
    return record({.name = "ncclGetUniqueId"});
  };
  n.commInitRank = [](ncclComm_t* comm, int size, ncclUniqueId id, int rank) {
    fake->lastId = id;
    fake->lastRank = rank;
    fake->lastSize = size;
    *comm = fakeComm(rank);
    return record(
        {.name = "ncclCommInitRank", .count = static_cast<size_t>(size), .peer = rank});
  };
  n.commInitAll = [](ncclComm_t* comms, int count, const int* ordinals) {
    fake->lastOrdinals.assign(ordinals, ordinals + count);
    for (int i = 0; i < count; ++i) comms[i] = fakeComm(i);
    return record({.name = "ncclCommInitAll", .count = static_cast<size_t>(count)});
  };
  n.commDestroy = [](ncclComm_t comm) {
    return record({.name = "ncclCommDestroy", .comm = comm});
  };
  n.commAbort = [](ncclComm_t comm) {
    return record({.name = "ncclCommAbort", .comm = comm});
  };
  n.commGetAsyncError = [](ncclComm_t, ncclResult_t* pending) {
    *pending = fake->asyncError;
    return kNcclSuccess;
  };
  n.groupStart = [] { return record({.name = "ncclGroupStart"}); };
  n.groupEnd = [] { return record({.name = "ncclGroupEnd"}); };
  n.allReduce = [](const void* s, void* r, size_t c, ncclDataType_t t, ncclRedOp_t op,
                   ncclComm_t comm, CUstream st) {
    return record({"ncclAllReduce", address(s), address(r), c, t, op, -1, comm, st});
  };
  n.allGather = [](const void* s, void* r, size_t c, ncclDataType_t t, ncclComm_t comm,
                   CUstream st) {
    return record({"ncclAllGather", address(s), address(r), c, t, -1, -1, comm, st});
  };
  n.reduceScatter = [](const void* s, void* r, size_t c, ncclDataType_t t, ncclRedOp_t op,
                       ncclComm_t comm, CUstream st) {
    return record({"ncclReduceScatter", address(s), address(r), c, t, op, -1, comm, st});
  };
  n.broadcast = [](const void* s, void* r, size_t c, ncclDataType_t t, int root,
                   ncclComm_t comm, CUstream st) {
    return record({"ncclBroadcast", address(s), address(r), c, t, -1, root, comm, st});
  };
  n.send = [](const void* s, size_t c, ncclDataType_t t, int peer, ncclComm_t comm,
              CUstream st) {
    return record({"ncclSend", address(s), 0, c, t, -1, peer, comm, st});
  };
  n.recv = [](void* r, size_t c, ncclDataType_t t, int peer, ncclComm_t comm,
              CUstream st) {
    return record({"ncclRecv", 0, address(r), c, t, -1, peer, comm, st});
  };
  return n;
}

// Communicators of `size` ranks made through the fake's ncclCommInitAll.
class NcclRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override { fake = &state_; }
  void TearDown() override {
    comms_.clear();
    fake = nullptr;
  }

  void makeComms(int size) {
    std::vector<int> ordinals;
    for (int i = 0; i < size; ++i) ordinals.push_back(i);
    auto comms = NcclCommunicator::createAll(nccl_, ordinals);
    ASSERT_TRUE(comms.isOk()) << comms.status().toString();
    comms_ = std::move(comms).value();
    state_.calls.clear();
  }

  NcclRunner runner() {
    return NcclRunner(nccl_, [this](uint64_t address, uint64_t bytes, CUstream stream) {
      fills_.push_back({address, bytes, stream});
      return fillStatus_;
    });
  }

  NcclRunner::Participant part(int rank, uint64_t input, uint64_t output) {
    return {comms_[rank].get(), fakeStream(rank), input, output};
  }

  // The calls made, without the group brackets, after checking they are
  // exactly one group around the rest.
  std::vector<Call> grouped() {
    const std::vector<Call>& calls = state_.calls;
    EXPECT_GE(calls.size(), 2u);
    if (calls.size() < 2) return {};
    EXPECT_EQ(calls.front().name, "ncclGroupStart");
    EXPECT_EQ(calls.back().name, "ncclGroupEnd");
    return std::vector<Call>(calls.begin() + 1, calls.end() - 1);
  }

  struct Fill {
    uint64_t address, bytes;
    CUstream stream;
    bool operator==(const Fill&) const = default;
  };

  Fake state_;
  Nccl nccl_ = fakeNccl();
  std::vector<std::unique_ptr<NcclCommunicator>> comms_;
  std::vector<Fill> fills_;
  Status fillStatus_ = Status::ok();
};

CollectiveDesc desc(CollectiveKind kind, CollectiveType type, int64_t ranks,
                    int64_t count) {
  CollectiveDesc d;
  d.kind = kind;
  d.type = type;
  d.ranks = ranks;
  d.count = count;
  return d;
}

TEST_F(NcclRunnerTest, AllReduceIsOneCallWithTypeAndOp) {
  makeComms(2);
  CollectiveDesc d = desc(CollectiveKind::kAllReduce, CollectiveType::kF32, 2, 16);
  d.reduction = CollectiveReduction::kMax;
  ASSERT_TRUE(runner().run(d, part(1, 0x100, 0x200)).isOk());
  // ncclMax is 2, ncclFloat32 7 (nccl.h).
  EXPECT_EQ(grouped(), std::vector<Call>({{"ncclAllReduce", 0x100, 0x200, 16, 7, 2, -1,
                                           fakeComm(1), fakeStream(1)}}));
  EXPECT_TRUE(fills_.empty());
}

TEST_F(NcclRunnerTest, AllGatherAndReduceScatterCountPerRank) {
  makeComms(4);
  // all_gather's count is what each rank sends: 6 bf16 (ncclBfloat16 = 9).
  ASSERT_TRUE(runner()
                  .run(desc(CollectiveKind::kAllGather, CollectiveType::kBF16, 4, 6),
                       part(0, 0x100, 0x200))
                  .isOk());
  EXPECT_EQ(grouped(), std::vector<Call>({{"ncclAllGather", 0x100, 0x200, 6, 9, -1, -1,
                                           fakeComm(0), fakeStream(0)}}));
  state_.calls.clear();
  // reduce_scatter's is what each rank receives: 12 / 4 = 3 s64 (ncclInt64
  // = 4), prod (ncclProd = 1).
  CollectiveDesc rs = desc(CollectiveKind::kReduceScatter, CollectiveType::kS64, 4, 12);
  rs.reduction = CollectiveReduction::kProd;
  ASSERT_TRUE(runner().run(rs, part(3, 0x100, 0x200)).isOk());
  EXPECT_EQ(grouped(), std::vector<Call>({{"ncclReduceScatter", 0x100, 0x200, 3, 4, 1, -1,
                                           fakeComm(3), fakeStream(3)}}));
}

TEST_F(NcclRunnerTest, BroadcastIsFromRankZero) {
  makeComms(2);
  ASSERT_TRUE(
      runner()
          .run(desc(CollectiveKind::kCollectiveBroadcast, CollectiveType::kU8, 2, 5),
               part(1, 0x100, 0x200))
          .isOk());
  EXPECT_EQ(grouped(), std::vector<Call>({{"ncclBroadcast", 0x100, 0x200, 5, 1, -1, 0,
                                           fakeComm(1), fakeStream(1)}}));
}

// f32[8] over 4 ranks: chunk j (2 elements, 8 bytes at 8 j) goes to rank j,
// and rank j's chunk lands at the same offset of the output.
TEST_F(NcclRunnerTest, AllToAllSendsAndReceivesEqualChunksInOneGroup) {
  makeComms(4);
  ASSERT_TRUE(runner()
                  .run(desc(CollectiveKind::kAllToAll, CollectiveType::kF32, 4, 8),
                       part(2, 0x1000, 0x2000))
                  .isOk());
  std::vector<Call> want;
  for (int peer = 0; peer < 4; ++peer) {
    want.push_back(
        {"ncclSend", 0x1000 + 8u * peer, 0, 2, 7, -1, peer, fakeComm(2), fakeStream(2)});
    want.push_back(
        {"ncclRecv", 0, 0x2000 + 8u * peer, 2, 7, -1, peer, fakeComm(2), fakeStream(2)});
  }
  EXPECT_EQ(grouped(), want);
}

// Pairs {0->1, 1->2} over 3 ranks, f64[3] (24 bytes): rank 0 only sends and
// its output is zeroed; rank 1 sends and receives; rank 2 only receives.
TEST_F(NcclRunnerTest, PermuteSendsPerPairAndZeroesRanksReceivingNothing) {
  makeComms(3);
  CollectiveDesc d = desc(CollectiveKind::kCollectivePermute, CollectiveType::kF64, 3, 3);
  d.pairs = {{0, 1}, {1, 2}};
  const NcclRunner r = runner();

  ASSERT_TRUE(r.run(d, part(0, 0x100, 0x200)).isOk());
  EXPECT_EQ(grouped(), std::vector<Call>({{"ncclSend", 0x100, 0, 3, 8, -1, 1, fakeComm(0),
                                           fakeStream(0)}}));
  EXPECT_EQ(fills_, std::vector<Fill>({{0x200, 24, fakeStream(0)}}));

  state_.calls.clear();
  fills_.clear();
  ASSERT_TRUE(r.run(d, part(1, 0x100, 0x200)).isOk());
  EXPECT_EQ(grouped(),
            std::vector<Call>({
                {"ncclSend", 0x100, 0, 3, 8, -1, 2, fakeComm(1), fakeStream(1)},
                {"ncclRecv", 0, 0x200, 3, 8, -1, 0, fakeComm(1), fakeStream(1)},
            }));
  EXPECT_TRUE(fills_.empty());

  state_.calls.clear();
  ASSERT_TRUE(r.run(d, part(2, 0x100, 0x200)).isOk());
  EXPECT_EQ(grouped(), std::vector<Call>({{"ncclRecv", 0, 0x200, 3, 8, -1, 1, fakeComm(2),
                                           fakeStream(2)}}));
  EXPECT_TRUE(fills_.empty());
}

TEST_F(NcclRunnerTest, PermuteToItselfSendsAndReceivesOnTheSameRank) {
  makeComms(1);
  CollectiveDesc d = desc(CollectiveKind::kCollectivePermute, CollectiveType::kS32, 1, 4);
  d.pairs = {{0, 0}};
  ASSERT_TRUE(runner().run(d, part(0, 0x100, 0x200)).isOk());
  EXPECT_EQ(grouped(),
            std::vector<Call>({
                {"ncclSend", 0x100, 0, 4, 2, -1, 0, fakeComm(0), fakeStream(0)},
                {"ncclRecv", 0, 0x200, 4, 2, -1, 0, fakeComm(0), fakeStream(0)},
            }));
  EXPECT_TRUE(fills_.empty());
}

TEST_F(NcclRunnerTest, PermuteWithNoPairsOnlyZeroes) {
  makeComms(2);
  CollectiveDesc d = desc(CollectiveKind::kCollectivePermute, CollectiveType::kF16, 2, 5);
  ASSERT_TRUE(runner().run(d, part(1, 0x100, 0x200)).isOk());
  EXPECT_EQ(fills_, std::vector<Fill>({{0x200, 10, fakeStream(1)}}));
  EXPECT_TRUE(grouped().empty());
}

TEST_F(NcclRunnerTest, AFailingZeroFillStopsBeforeNccl) {
  makeComms(2);
  fillStatus_ = internalError("cuMemsetD8Async failed");
  CollectiveDesc d = desc(CollectiveKind::kCollectivePermute, CollectiveType::kF32, 2, 5);
  Status s = runner().run(d, part(0, 0x100, 0x200));
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_TRUE(state_.calls.empty());
}

// One thread driving both ranks: both parts inside one group.
TEST_F(NcclRunnerTest, RunGroupIssuesEveryRankInOneGroup) {
  makeComms(2);
  CollectiveDesc d = desc(CollectiveKind::kAllReduce, CollectiveType::kS32, 2, 4);
  d.reduction = CollectiveReduction::kMin;  // ncclMin = 3
  ASSERT_TRUE(
      runner().runGroup(d, {part(0, 0x100, 0x200), part(1, 0x300, 0x400)}).isOk());
  EXPECT_EQ(grouped(),
            std::vector<Call>({
                {"ncclAllReduce", 0x100, 0x200, 4, 2, 3, -1, fakeComm(0), fakeStream(0)},
                {"ncclAllReduce", 0x300, 0x400, 4, 2, 3, -1, fakeComm(1), fakeStream(1)},
            }));
}

TEST_F(NcclRunnerTest, EveryTypeMapsToNcclsValue) {
  EXPECT_EQ(ncclDataTypeOf(CollectiveType::kS8), 0);
  EXPECT_EQ(ncclDataTypeOf(CollectiveType::kU8), 1);
  EXPECT_EQ(ncclDataTypeOf(CollectiveType::kS32), 2);
  EXPECT_EQ(ncclDataTypeOf(CollectiveType::kU32), 3);
  EXPECT_EQ(ncclDataTypeOf(CollectiveType::kS64), 4);
  EXPECT_EQ(ncclDataTypeOf(CollectiveType::kU64), 5);
  EXPECT_EQ(ncclDataTypeOf(CollectiveType::kF16), 6);
  EXPECT_EQ(ncclDataTypeOf(CollectiveType::kF32), 7);
  EXPECT_EQ(ncclDataTypeOf(CollectiveType::kF64), 8);
  EXPECT_EQ(ncclDataTypeOf(CollectiveType::kBF16), 9);
  EXPECT_EQ(ncclDataTypeOf(CollectiveType::kF8E4M3FN), 10);
  EXPECT_EQ(ncclDataTypeOf(CollectiveType::kF8E5M2), 11);
  EXPECT_EQ(ncclRedOpOf(CollectiveReduction::kSum), 0);
  EXPECT_EQ(ncclRedOpOf(CollectiveReduction::kProd), 1);
  EXPECT_EQ(ncclRedOpOf(CollectiveReduction::kMax), 2);
  EXPECT_EQ(ncclRedOpOf(CollectiveReduction::kMin), 3);
}

// --- errors ---------------------------------------------------------------------

TEST_F(NcclRunnerTest, AFailedCallNamesTheCollectiveAndStillClosesTheGroup) {
  makeComms(1);
  state_.fail["ncclAllReduce"] = kNcclInvalidArgument;
  Status s = runner().run(desc(CollectiveKind::kAllReduce, CollectiveType::kF32, 1, 4),
                          part(0, 0x100, 0x200));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "all_reduce sum f32 x4 over 1 rank: ncclAllReduce (rank 0) failed: "
            "ncclInvalidArgument (4): fake: invalid argument");
  ASSERT_EQ(state_.calls.size(), 3u);
  EXPECT_EQ(state_.calls.back().name, "ncclGroupEnd");
}

TEST_F(NcclRunnerTest, AFailedSendStopsTheRestButClosesTheGroup) {
  makeComms(2);
  state_.fail["ncclSend"] = kNcclRemoteError;
  Status s = runner().run(desc(CollectiveKind::kAllToAll, CollectiveType::kF32, 2, 4),
                          part(1, 0x100, 0x200));
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_NE(
      s.message().find("all_to_all f32 x4 over 2 ranks: ncclSend (rank 1) to rank 0 "
                       "failed: ncclRemoteError (6)"),
      std::string::npos)
      << s.message();
  ASSERT_EQ(state_.calls.size(), 3u);  // start, the failed send, end
  EXPECT_EQ(state_.calls.back().name, "ncclGroupEnd");
}

TEST_F(NcclRunnerTest, GroupEndErrorsAreReported) {
  makeComms(1);
  state_.fail["ncclGroupEnd"] = kNcclUnhandledCudaError;
  Status s = runner().run(desc(CollectiveKind::kAllGather, CollectiveType::kF32, 1, 4),
                          part(0, 0x100, 0x200));
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_NE(s.message().find("all_gather f32 x4 over 1 rank: ncclGroupEnd failed: "
                             "ncclUnhandledCudaError (1)"),
            std::string::npos)
      << s.message();
}

TEST_F(NcclRunnerTest, ResultsBecomeStatusCodes) {
  EXPECT_TRUE(nccl_.check(kNcclSuccess, "x").isOk());
  EXPECT_EQ(nccl_.check(kNcclInvalidArgument, "x").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(nccl_.check(kNcclInvalidUsage, "x").code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(nccl_.check(kNcclRemoteError, "x").code(), StatusCode::kUnavailable);
  EXPECT_EQ(nccl_.check(kNcclSystemError, "x").code(), StatusCode::kUnavailable);
  EXPECT_EQ(nccl_.check(kNcclTimeout, "x").code(), StatusCode::kUnavailable);
  EXPECT_EQ(nccl_.check(kNcclInternalError, "x").code(), StatusCode::kInternal);
  EXPECT_EQ(nccl_.check(kNcclUnhandledCudaError, "x").code(), StatusCode::kInternal);
  EXPECT_EQ(nccl_.check(kNcclInProgress, "x").code(), StatusCode::kInternal);
  EXPECT_EQ(nccl_.check(42, "ncclAllGather").message(),
            "ncclAllGather failed: NCCL error (42): fake: failure");
  // A table without ncclGetErrorString still gives the name and number.
  Nccl bare;
  EXPECT_EQ(bare.check(kNcclInternalError, "ncclSend").message(),
            "ncclSend failed: ncclInternalError (3)");
}

TEST_F(NcclRunnerTest, BadArgumentsAreRefusedBeforeAnyCall) {
  makeComms(2);
  const NcclRunner r = runner();
  // A description for another communicator size.
  Status s = r.run(desc(CollectiveKind::kAllReduce, CollectiveType::kF32, 4, 8),
                   part(0, 0x100, 0x200));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("all_reduce sum f32 x8 over 4 ranks: the communicator has 2 "
                             "ranks"),
            std::string::npos)
      << s.message();
  // A null buffer.
  s = r.run(desc(CollectiveKind::kAllReduce, CollectiveType::kF32, 2, 8),
            part(0, 0, 0x200));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("null"), std::string::npos);
  // No communicator.
  s = r.run(desc(CollectiveKind::kAllReduce, CollectiveType::kF32, 2, 8),
            {nullptr, nullptr, 0x100, 0x200});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  // An invalid description.
  s = r.run(desc(CollectiveKind::kReduceScatter, CollectiveType::kF32, 2, 3),
            part(0, 0x100, 0x200));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  // No participants.
  EXPECT_EQ(
      r.runGroup(desc(CollectiveKind::kAllReduce, CollectiveType::kF32, 2, 8), {}).code(),
      StatusCode::kInvalidArgument);
  EXPECT_TRUE(state_.calls.empty());
  EXPECT_TRUE(fills_.empty());
}

TEST_F(NcclRunnerTest, EmptyCollectivesCallNothing) {
  makeComms(2);
  for (CollectiveKind kind :
       {CollectiveKind::kAllReduce, CollectiveKind::kAllGather,
        CollectiveKind::kReduceScatter, CollectiveKind::kAllToAll,
        CollectiveKind::kCollectivePermute, CollectiveKind::kCollectiveBroadcast}) {
    // Empty buffers may well have null addresses.
    EXPECT_TRUE(
        runner().run(desc(kind, CollectiveType::kF32, 2, 0), part(0, 0, 0)).isOk());
  }
  EXPECT_TRUE(state_.calls.empty());
  EXPECT_TRUE(fills_.empty());
}

TEST_F(NcclRunnerTest, RunnerWithoutZeroFillRefusesPermutesNeedingIt) {
  makeComms(2);
  NcclRunner r(nccl_, nullptr);
  CollectiveDesc d = desc(CollectiveKind::kCollectivePermute, CollectiveType::kF32, 2, 4);
  d.pairs = {{0, 1}};
  EXPECT_EQ(r.run(d, part(0, 0x100, 0x200)).code(), StatusCode::kInternal);
  EXPECT_TRUE(r.run(d, part(1, 0x100, 0x200)).isOk());  // rank 1 receives
}

// --- communicators --------------------------------------------------------------

TEST_F(NcclRunnerTest, CreateJoinsWithTheIdRankAndSizeAndDestroysOnRelease) {
  auto id = newNcclUniqueId(nccl_);
  ASSERT_TRUE(id.isOk());
  EXPECT_EQ(id->internal[0], 7);
  EXPECT_EQ(id->internal[127], 7);
  auto comm = NcclCommunicator::create(nccl_, *id, 2, 4);
  ASSERT_TRUE(comm.isOk()) << comm.status().toString();
  EXPECT_EQ(state_.lastRank, 2);
  EXPECT_EQ(state_.lastSize, 4);
  EXPECT_EQ(std::memcmp(state_.lastId.internal, id->internal, kNcclUniqueIdBytes), 0);
  EXPECT_EQ((*comm)->rank(), 2);
  EXPECT_EQ((*comm)->size(), 4);
  EXPECT_EQ((*comm)->handle(), fakeComm(2));
  state_.calls.clear();
  comm->reset();
  EXPECT_EQ(state_.calls,
            std::vector<Call>({{.name = "ncclCommDestroy", .comm = fakeComm(2)}}));
}

TEST_F(NcclRunnerTest, CreateRefusesRanksOutsideTheCommunicator) {
  ncclUniqueId id{};
  EXPECT_EQ(NcclCommunicator::create(nccl_, id, 4, 4).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(NcclCommunicator::create(nccl_, id, -1, 4).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(NcclCommunicator::create(nccl_, id, 0, 0).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(NcclCommunicator::createAll(nccl_, {}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(state_.calls.empty());
}

TEST_F(NcclRunnerTest, CreateReportsNcclsError) {
  state_.fail["ncclCommInitRank"] = kNcclSystemError;
  ncclUniqueId id{};
  Status s = NcclCommunicator::create(nccl_, id, 1, 2).status();
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_NE(
      s.message().find("ncclCommInitRank (rank 1 of 2) failed: ncclSystemError (2)"),
      std::string::npos)
      << s.message();
  state_.fail["ncclCommInitAll"] = kNcclUnhandledCudaError;
  s = NcclCommunicator::createAll(nccl_, {0, 1}).status();
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_NE(s.message().find("ncclCommInitAll over 2 devices"), std::string::npos);
}

TEST_F(NcclRunnerTest, CreateAllGivesRankIOnOrdinalI) {
  auto comms = NcclCommunicator::createAll(nccl_, {3, 1});
  ASSERT_TRUE(comms.isOk());
  EXPECT_EQ(state_.lastOrdinals, std::vector<int>({3, 1}));
  ASSERT_EQ(comms->size(), 2u);
  EXPECT_EQ((*comms)[0]->rank(), 0);
  EXPECT_EQ((*comms)[1]->rank(), 1);
  EXPECT_EQ((*comms)[1]->size(), 2);
  EXPECT_EQ((*comms)[1]->handle(), fakeComm(1));
}

TEST_F(NcclRunnerTest, AsyncErrorsAreReportedAndAbortInsteadOfDestroy) {
  makeComms(1);
  EXPECT_TRUE(comms_[0]->asyncError().isOk());
  state_.asyncError = kNcclRemoteError;
  Status s = comms_[0]->asyncError();
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_NE(s.message().find("(rank 0) failed: ncclRemoteError"), std::string::npos)
      << s.message();
  comms_.clear();
  EXPECT_EQ(state_.calls,
            std::vector<Call>({{.name = "ncclCommAbort", .comm = fakeComm(0)}}));
}

TEST_F(NcclRunnerTest, AbortTearsDownOnceAndTheRunnerRefusesTheCommunicator) {
  makeComms(1);
  EXPECT_TRUE(comms_[0]->abort().isOk());
  EXPECT_TRUE(comms_[0]->abort().isOk());  // a second abort does nothing
  EXPECT_EQ(comms_[0]->asyncError().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(runner()
                .run(desc(CollectiveKind::kAllReduce, CollectiveType::kF32, 1, 4),
                     part(0, 0x100, 0x200))
                .code(),
            StatusCode::kInvalidArgument);
  comms_.clear();
  EXPECT_EQ(state_.calls,
            std::vector<Call>({{.name = "ncclCommAbort", .comm = fakeComm(0)}}));
}

}  // namespace
}  // namespace jft::runtime::gpu
