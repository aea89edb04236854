// The communicator cache and one device's collective runner over a fake,
// thread-safe NCCL table: rank 0 makes the unique id and publishes it under
// the clique's key, other ranks wait for it (two threads, as two devices'
// threads would), communicators are made once per (clique, rank), destroyed
// together in one NCCL group, and a communicator's asynchronous error is the
// next run's error. No GPU, no NCCL.
#include "runtime/gpu/nccl_cliques.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "runtime/in_process_clique_ids.h"

namespace jft::runtime::gpu {
namespace {

// What the fake saw, guarded for calls from several threads.
struct FakeState {
  std::mutex mutex;
  std::vector<std::string> calls;    // "ncclCommInitRank 1/2", "ncclCommDestroy #1", ...
  std::vector<std::string> initIds;  // the id each ncclCommInitRank got, hex
  uintptr_t nextComm = 1;
  uintptr_t brokenComm = 0;  // this one reports ncclRemoteError asynchronously
  ncclResult_t uniqueIdResult = kNcclSuccess;
};
FakeState* state = nullptr;

void note(const std::string& call) {
  std::lock_guard<std::mutex> lock(state->mutex);
  state->calls.push_back(call);
}

std::string commName(ncclComm_t comm) {
  return "#" + std::to_string(reinterpret_cast<uintptr_t>(comm));
}

Nccl fakeNccl(bool withFinalize) {
  Nccl n;
  n.library_name = "fake";
  n.getErrorString = [](ncclResult_t) -> const char* { return "fake failure"; };
  n.getUniqueId = [](ncclUniqueId* id) {
    for (size_t i = 0; i < kNcclUniqueIdBytes; ++i)
      id->internal[i] = static_cast<char>(i * 7 + 3);
    note("ncclGetUniqueId");
    return state->uniqueIdResult;
  };
  n.commInitRank = [](ncclComm_t* comm, int size, ncclUniqueId id, int rank) {
    std::lock_guard<std::mutex> lock(state->mutex);
    *comm = reinterpret_cast<ncclComm_t>(state->nextComm++);
    state->calls.push_back("ncclCommInitRank " + std::to_string(rank) + "/" +
                           std::to_string(size));
    state->initIds.push_back(encodeCliqueId(id));
    return kNcclSuccess;
  };
  n.commDestroy = [](ncclComm_t comm) {
    note("ncclCommDestroy " + commName(comm));
    return kNcclSuccess;
  };
  n.commAbort = [](ncclComm_t comm) {
    note("ncclCommAbort " + commName(comm));
    return kNcclSuccess;
  };
  n.commGetAsyncError = [](ncclComm_t comm, ncclResult_t* pending) {
    std::lock_guard<std::mutex> lock(state->mutex);
    *pending = reinterpret_cast<uintptr_t>(comm) == state->brokenComm ? kNcclRemoteError
                                                                      : kNcclSuccess;
    return kNcclSuccess;
  };
  n.groupStart = [] {
    note("ncclGroupStart");
    return kNcclSuccess;
  };
  n.groupEnd = [] {
    note("ncclGroupEnd");
    return kNcclSuccess;
  };
  n.allReduce = [](const void* s, void* r, size_t c, ncclDataType_t, ncclRedOp_t,
                   ncclComm_t comm, CUstream st) {
    note("ncclAllReduce " + std::to_string(reinterpret_cast<uintptr_t>(s)) + "->" +
         std::to_string(reinterpret_cast<uintptr_t>(r)) + " x" + std::to_string(c) +
         " on " + commName(comm) + " stream " +
         std::to_string(reinterpret_cast<uintptr_t>(st)));
    return kNcclSuccess;
  };
  n.recv = [](void*, size_t, ncclDataType_t, int peer, ncclComm_t, CUstream) {
    note("ncclRecv from " + std::to_string(peer));
    return kNcclSuccess;
  };
  n.send = [](const void*, size_t, ncclDataType_t, int peer, ncclComm_t, CUstream) {
    note("ncclSend to " + std::to_string(peer));
    return kNcclSuccess;
  };
  if (withFinalize)
    n.comm_finalize = [](ncclComm_t comm) {
      note("ncclCommFinalize " + commName(comm));
      return kNcclSuccess;
    };
  return n;
}

// Records what is published and delegates to an in-process table.
class RecordingExchange final : public CliqueIdExchange {
 public:
  Status publish(const std::string& key, const std::string& value) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      published.emplace_back(key, value);
    }
    return table_.publish(key, value);
  }
  StatusOr<std::string> wait(const std::string& key,
                             std::chrono::milliseconds timeout) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      waited.push_back(key);
    }
    return table_.wait(key, timeout);
  }
  std::vector<std::pair<std::string, std::string>> published;
  std::vector<std::string> waited;

 private:
  std::mutex mutex_;
  InProcessCliqueIds table_;
};

// The id the fake's ncclGetUniqueId makes, as the exchange carries it.
std::string fakeIdHex() {
  ncclUniqueId id;
  for (size_t i = 0; i < kNcclUniqueIdBytes; ++i)
    id.internal[i] = static_cast<char>(i * 7 + 3);
  return encodeCliqueId(id);
}

class NcclCliquesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    state = &state_;
    unsetenv("JFT_COLLECTIVE_TIMEOUT_S");
    exchange_ = std::make_shared<RecordingExchange>();
    cliques_.setExchange(exchange_);
  }
  void TearDown() override {
    cliques_.destroyAll();
    unsetenv("JFT_COLLECTIVE_TIMEOUT_S");
    state = nullptr;
  }
  std::vector<std::string> calls() {
    std::lock_guard<std::mutex> lock(state_.mutex);
    return state_.calls;
  }
  void clearCalls() {
    std::lock_guard<std::mutex> lock(state_.mutex);
    state_.calls.clear();
  }

  // Device `ordinal`'s runner: stream 0x100 * (ordinal + 1), contexts and
  // zero fills recorded.
  NcclDeviceRunner runner(int ordinal) {
    NcclDeviceRunner::Target t;
    t.ordinal = ordinal;
    t.name = "fake GPU " + std::to_string(ordinal);
    t.stream = reinterpret_cast<CUstream>(static_cast<uintptr_t>(0x100 * (ordinal + 1)));
    t.make_current = [ordinal] {
      note("makeCurrent " + std::to_string(ordinal));
      return Status::ok();
    };
    t.zero_fill = [](uint64_t address, uint64_t bytes, CUstream stream) {
      note("zero " + std::to_string(address) + " x" + std::to_string(bytes) + " stream " +
           std::to_string(reinterpret_cast<uintptr_t>(stream)));
      return Status::ok();
    };
    return NcclDeviceRunner(cliques_, std::move(t));
  }

  FakeState state_;
  Nccl nccl_ = fakeNccl(/*withFinalize=*/true);
  NcclCliques cliques_{[this]() -> StatusOr<const Nccl*> { return &nccl_; }};
  std::shared_ptr<RecordingExchange> exchange_;
};

CollectiveDesc allReduce(int64_t ranks, int64_t count) {
  CollectiveDesc d;
  d.kind = CollectiveKind::kAllReduce;
  d.type = CollectiveType::kF32;
  d.ranks = ranks;
  d.count = count;
  return d;
}

// Two members driven by two threads: rank 0 publishes its id under the
// clique's key, rank 1 waits for it; both join with the same id.
TEST_F(NcclCliquesTest, TwoThreadsJoinOneCliqueThroughTheExchange) {
  const std::vector<int64_t> clique = {5, 9};
  StatusOr<NcclCommunicator*> comms[2] = {internalError("not run"),
                                          internalError("not run")};
  std::thread second([&] { comms[1] = cliques_.communicator(clique, 1, 1); });
  comms[0] = cliques_.communicator(clique, 0, 0);
  second.join();
  for (int r = 0; r < 2; ++r) {
    ASSERT_TRUE(comms[r].isOk()) << comms[r].status().toString();
    EXPECT_EQ((*comms[r])->rank(), r);
    EXPECT_EQ((*comms[r])->size(), 2);
  }
  ASSERT_EQ(exchange_->published.size(), 1u);
  EXPECT_EQ(exchange_->published[0].first, "jft/nccl_clique_id/5,9");
  EXPECT_EQ(exchange_->published[0].second, fakeIdHex());
  EXPECT_EQ(exchange_->waited, std::vector<std::string>{"jft/nccl_clique_id/5,9"});
  EXPECT_EQ(state_.initIds, std::vector<std::string>(2, fakeIdHex()));
  EXPECT_EQ(cliques_.size(), 2u);
  // Made once: the next use finds it.
  clearCalls();
  StatusOr<NcclCommunicator*> again = cliques_.communicator(clique, 0, 0);
  ASSERT_TRUE(again.isOk());
  EXPECT_EQ(*again, *comms[0]);
  EXPECT_TRUE(calls().empty());
}

TEST_F(NcclCliquesTest, ACliqueOfOneNeedsNoExchange) {
  StatusOr<NcclCommunicator*> comm = cliques_.communicator(std::vector<int64_t>{3}, 0, 0);
  ASSERT_TRUE(comm.isOk()) << comm.status().toString();
  EXPECT_EQ((*comm)->size(), 1);
  EXPECT_EQ(calls(),
            (std::vector<std::string>{"ncclGetUniqueId", "ncclCommInitRank 0/1"}));
  EXPECT_TRUE(exchange_->published.empty());
}

// Rank order is part of the clique: [9,5] is another communicator than [5,9].
TEST_F(NcclCliquesTest, RankOrderNamesAnotherClique) {
  ASSERT_TRUE(cliques_.communicator(std::vector<int64_t>{5, 9}, 0, 0).isOk());
  ASSERT_TRUE(cliques_.communicator(std::vector<int64_t>{9, 5}, 0, 1).isOk());
  ASSERT_EQ(exchange_->published.size(), 2u);
  EXPECT_EQ(exchange_->published[1].first, "jft/nccl_clique_id/9,5");
  EXPECT_EQ(cliques_.size(), 2u);
}

TEST_F(NcclCliquesTest, AMemberWhoseRankZeroNeverComesTimesOutNamingTheKey) {
  setenv("JFT_COLLECTIVE_TIMEOUT_S", "0.05", 1);
  StatusOr<NcclCommunicator*> comm =
      cliques_.communicator(std::vector<int64_t>{5, 9}, 1, 1);
  ASSERT_FALSE(comm.isOk());
  EXPECT_EQ(comm.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_NE(comm.status().message().find("jft/nccl_clique_id/5,9"), std::string::npos)
      << comm.status().message();
  EXPECT_NE(comm.status().message().find("rank 1 of clique {5,9}"), std::string::npos);
  EXPECT_EQ(cliques_.size(), 0u);
  // Nothing was remembered: once rank 0 has come, the next try joins.
  ASSERT_TRUE(cliques_.communicator(std::vector<int64_t>{5, 9}, 0, 0).isOk());
  EXPECT_TRUE(cliques_.communicator(std::vector<int64_t>{5, 9}, 1, 1).isOk());
}

TEST_F(NcclCliquesTest, ABadTimeoutSettingIsRefusedByName) {
  setenv("JFT_COLLECTIVE_TIMEOUT_S", "soon", 1);
  StatusOr<NcclCommunicator*> comm =
      cliques_.communicator(std::vector<int64_t>{5, 9}, 1, 1);
  ASSERT_FALSE(comm.isOk());
  EXPECT_EQ(comm.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(comm.status().message().find("JFT_COLLECTIVE_TIMEOUT_S='soon'"),
            std::string::npos);
}

TEST_F(NcclCliquesTest, AGarbledIdIsRefusedNamingTheKey) {
  ASSERT_TRUE(exchange_->publish("jft/nccl_clique_id/1,2", "not an id").isOk());
  StatusOr<NcclCommunicator*> comm =
      cliques_.communicator(std::vector<int64_t>{1, 2}, 1, 2);
  ASSERT_FALSE(comm.isOk());
  EXPECT_EQ(comm.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(comm.status().message().find("'jft/nccl_clique_id/1,2'"), std::string::npos);
}

TEST_F(NcclCliquesTest, ARankHeldByOneDeviceIsRefusedToAnother) {
  ASSERT_TRUE(cliques_.communicator(std::vector<int64_t>{4}, 0, 0).isOk());
  StatusOr<NcclCommunicator*> comm = cliques_.communicator(std::vector<int64_t>{4}, 0, 1);
  ASSERT_FALSE(comm.isOk());
  EXPECT_EQ(comm.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(comm.status().message().find("belongs to device 0, not device 1"),
            std::string::npos);
}

TEST_F(NcclCliquesTest, AFailedUniqueIdIsNamedAndNotRemembered) {
  state_.uniqueIdResult = kNcclSystemError;
  StatusOr<NcclCommunicator*> comm = cliques_.communicator(std::vector<int64_t>{4}, 0, 0);
  ASSERT_FALSE(comm.isOk());
  EXPECT_EQ(comm.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(comm.status().message().find("ncclGetUniqueId"), std::string::npos);
  state_.uniqueIdResult = kNcclSuccess;
  EXPECT_TRUE(cliques_.communicator(std::vector<int64_t>{4}, 0, 0).isOk());
}

// NCCL destroys a process's ranks together: finalize them in one group, then
// destroy each; a communicator with an asynchronous error is aborted.
TEST_F(NcclCliquesTest, DestroyAllFinalizesInOneGroupThenDestroys) {
  StatusOr<NcclCommunicator*> a = cliques_.communicator(std::vector<int64_t>{1}, 0, 0);
  StatusOr<NcclCommunicator*> b = cliques_.communicator(std::vector<int64_t>{2}, 0, 1);
  StatusOr<NcclCommunicator*> c = cliques_.communicator(std::vector<int64_t>{3}, 0, 2);
  ASSERT_TRUE(a.isOk() && b.isOk() && c.isOk());
  const std::string na = commName((*a)->handle()), nb = commName((*b)->handle()),
                    nc = commName((*c)->handle());
  state_.brokenComm = reinterpret_cast<uintptr_t>((*c)->handle());
  clearCalls();
  cliques_.destroyAll();
  EXPECT_EQ(calls(),
            (std::vector<std::string>{"ncclGroupStart", "ncclCommFinalize " + na,
                                      "ncclCommFinalize " + nb, "ncclGroupEnd",
                                      "ncclCommDestroy " + na, "ncclCommDestroy " + nb,
                                      "ncclCommAbort " + nc}));
  EXPECT_EQ(cliques_.size(), 0u);
}

TEST_F(NcclCliquesTest, WithoutFinalizeEachIsDestroyedAlone) {
  Nccl old = fakeNccl(/*withFinalize=*/false);
  NcclCliques cliques([&]() -> StatusOr<const Nccl*> { return &old; });
  ASSERT_TRUE(cliques.communicator(std::vector<int64_t>{1}, 0, 0).isOk());
  clearCalls();
  cliques.destroyAll();
  EXPECT_EQ(calls(), std::vector<std::string>{"ncclCommDestroy #1"});
}

// After destroyAll the default exchange starts afresh: a member of a clique
// made again waits for the new id instead of joining with the old one.
TEST_F(NcclCliquesTest, ACliqueMadeAgainNeverReadsItsOldId) {
  NcclCliques cliques([this]() -> StatusOr<const Nccl*> { return &nccl_; });
  const std::vector<int64_t> clique = {5, 9};
  std::thread second([&] { EXPECT_TRUE(cliques.communicator(clique, 1, 1).isOk()); });
  EXPECT_TRUE(cliques.communicator(clique, 0, 0).isOk());
  second.join();
  cliques.destroyAll();
  setenv("JFT_COLLECTIVE_TIMEOUT_S", "0.05", 1);
  StatusOr<NcclCommunicator*> comm = cliques.communicator(clique, 1, 1);
  EXPECT_EQ(comm.status().code(), StatusCode::kDeadlineExceeded)
      << comm.status().toString();
}

// --- the runner ------------------------------------------------------------------

TEST_F(NcclCliquesTest, RunnerMakesItsContextCurrentAndRunsOnItsStream) {
  NcclDeviceRunner device = runner(0);
  ASSERT_TRUE(device.run(allReduce(1, 4), std::vector<int64_t>{7}, 0, 1000, 2000).isOk());
  EXPECT_EQ(calls(), (std::vector<std::string>{
                         "makeCurrent 0", "ncclGetUniqueId", "ncclCommInitRank 0/1",
                         "ncclGroupStart", "ncclAllReduce 1000->2000 x4 on #1 stream 256",
                         "ncclGroupEnd"}));
  clearCalls();
  ASSERT_TRUE(device.run(allReduce(1, 4), std::vector<int64_t>{7}, 0, 3000, 4000).isOk());
  EXPECT_EQ(calls(),
            (std::vector<std::string>{"makeCurrent 0", "ncclGroupStart",
                                      "ncclAllReduce 3000->4000 x4 on #1 stream 256",
                                      "ncclGroupEnd"}));
}

TEST_F(NcclCliquesTest, RunnersOfTwoDevicesOnTwoThreadsShareTheClique) {
  NcclDeviceRunner first = runner(0), second = runner(1);
  const std::vector<int64_t> clique = {10, 11};
  Status statuses[2];
  std::thread t([&] { statuses[1] = second.run(allReduce(2, 8), clique, 1, 16, 32); });
  statuses[0] = first.run(allReduce(2, 8), clique, 0, 48, 64);
  t.join();
  EXPECT_TRUE(statuses[0].isOk()) << statuses[0].toString();
  EXPECT_TRUE(statuses[1].isOk()) << statuses[1].toString();
  EXPECT_EQ(state_.initIds, std::vector<std::string>(2, fakeIdHex()));
  EXPECT_EQ(cliques_.size(), 2u);
}

TEST_F(NcclCliquesTest, APermuteTargetNobodySendsToIsZeroedOnItsStream) {
  NcclDeviceRunner device = runner(1);
  CollectiveDesc d = allReduce(2, 3);
  d.kind = CollectiveKind::kCollectivePermute;
  d.pairs = {{1, 0}};
  // Rank 0 (device 0, not run here) has joined; rank 1 receives nothing.
  ASSERT_TRUE(cliques_.communicator(std::vector<int64_t>{4, 6}, 0, 0).isOk());
  clearCalls();
  ASSERT_TRUE(device.run(d, std::vector<int64_t>{4, 6}, 1, 100, 200).isOk());
  EXPECT_EQ(calls(),
            (std::vector<std::string>{"makeCurrent 1", "ncclCommInitRank 1/2",
                                      "zero 200 x12 stream 512", "ncclGroupStart",
                                      "ncclSend to 0", "ncclGroupEnd"}));
  clearCalls();
  d.pairs = {{0, 0}};
  ASSERT_TRUE(device.run(d, std::vector<int64_t>{4, 6}, 1, 100, 200).isOk());
  EXPECT_EQ(calls(), (std::vector<std::string>{"makeCurrent 1", "zero 200 x12 stream 512",
                                               "ncclGroupStart", "ncclGroupEnd"}));
}

TEST_F(NcclCliquesTest, AnAsynchronousErrorIsTheNextRunsError) {
  NcclDeviceRunner device = runner(0);
  ASSERT_TRUE(device.run(allReduce(1, 4), std::vector<int64_t>{7}, 0, 1000, 2000).isOk());
  state_.brokenComm = 1;  // the communicator just made
  clearCalls();
  Status s = device.run(allReduce(1, 4), std::vector<int64_t>{7}, 0, 1000, 2000);
  EXPECT_EQ(s.code(), StatusCode::kUnavailable) << s.toString();
  EXPECT_NE(s.message().find("ncclRemoteError"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("rank 0 of clique {7}"), std::string::npos) << s.message();
  EXPECT_EQ(calls(), std::vector<std::string>{"makeCurrent 0"});  // nothing enqueued
}

TEST_F(NcclCliquesTest, RunnerRefusesMalformedCliques) {
  NcclDeviceRunner device = runner(0);
  Status s = device.run(allReduce(2, 4), std::vector<int64_t>{7}, 0, 1, 2);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("the clique has 1 devices"), std::string::npos);
  s = device.run(allReduce(2, 4), std::vector<int64_t>{7, 7}, 0, 1, 2);
  EXPECT_NE(s.message().find("names a device twice"), std::string::npos) << s.message();
  s = device.run(allReduce(2, 4), std::vector<int64_t>{7, 8}, 2, 1, 2);
  EXPECT_NE(s.message().find("the rank is outside the clique"), std::string::npos);
  s = device.run(allReduce(1, 4), std::vector<int64_t>{}, 0, 1, 2);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(calls().empty());
}

TEST_F(NcclCliquesTest, WithoutNcclARunIsUnavailableButAnEmptyOneRuns) {
  NcclCliques none([]() -> StatusOr<const Nccl*> {
    return unavailable("cannot load NCCL (set JFT_NCCL_LIBRARY to its path, ...)");
  });
  NcclDeviceRunner::Target t;
  t.name = "fake GPU";
  t.make_current = [] { return Status::ok(); };
  NcclDeviceRunner device(none, std::move(t));
  Status s = device.run(allReduce(1, 4), std::vector<int64_t>{7}, 0, 1, 2);
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_NE(s.message().find("need NCCL"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("JFT_NCCL_LIBRARY"), std::string::npos) << s.message();
  EXPECT_TRUE(device.run(allReduce(1, 0), std::vector<int64_t>{7}, 0, 0, 0).isOk());
}

// --- settings and encodings ----------------------------------------------------

TEST(CliqueIdTimeout, ReadsSecondsFromTheEnvironment) {
  unsetenv("JFT_COLLECTIVE_TIMEOUT_S");
  EXPECT_EQ(*cliqueIdTimeout(), std::chrono::milliseconds(300000));
  setenv("JFT_COLLECTIVE_TIMEOUT_S", "2.5", 1);
  EXPECT_EQ(*cliqueIdTimeout(), std::chrono::milliseconds(2500));
  for (const char* bad : {"0", "-1", "ten", "5s", "inf", "nan"}) {
    setenv("JFT_COLLECTIVE_TIMEOUT_S", bad, 1);
    StatusOr<std::chrono::milliseconds> t = cliqueIdTimeout();
    ASSERT_FALSE(t.isOk()) << bad;
    EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(t.status().message().find(std::string("'") + bad + "'"), std::string::npos);
  }
  unsetenv("JFT_COLLECTIVE_TIMEOUT_S");
}

TEST(CliqueId, HexRoundTripsEveryByte) {
  ncclUniqueId id;
  for (size_t i = 0; i < kNcclUniqueIdBytes; ++i)
    id.internal[i] = static_cast<char>(255 - i);
  const std::string text = encodeCliqueId(id);
  ASSERT_EQ(text.size(), 256u);
  EXPECT_EQ(text.substr(0, 6), "fffefd");
  StatusOr<ncclUniqueId> back = decodeCliqueId(text);
  ASSERT_TRUE(back.isOk());
  EXPECT_EQ(std::memcmp(back->internal, id.internal, kNcclUniqueIdBytes), 0);
  EXPECT_FALSE(decodeCliqueId(text.substr(1)).isOk());
  EXPECT_FALSE(decodeCliqueId(std::string(256, 'g')).isOk());
  EXPECT_EQ(cliqueIdKey(std::vector<int64_t>{5, 7, 9, 11}),
            "jft/nccl_clique_id/5,7,9,11");
}

}  // namespace
}  // namespace jft::runtime::gpu
