// The NCCL communicators of one process's devices and the CollectiveRunner
// (runtime/collective_context.h) of one device over them.
//
// NcclCliques is shared by every device of a platform: a communicator per
// (clique, rank), the clique being the global device ids of a process group
// in rank order (runtime/collective_groups.h). The first run of a clique on a
// rank makes that rank's communicator on the calling thread: rank 0 makes
// NCCL's unique id and publishes it through the platform's CliqueIdExchange
// under cliqueIdKey(clique), the other ranks wait for it (up to
// cliqueIdTimeout()), then each calls ncclCommInitRank, which returns once
// every rank has joined. So each member must be driven by its own thread (one
// per device, as the PJRT layer does) or process. A clique of one device
// needs no exchange. Communicators live until destroyAll (the platform's
// teardown, before any device's stream and context go); a communicator whose
// peer failed stays, and reports its asynchronous error on every later run.
//
// NcclDeviceRunner is one device's part: its stream, its context, its fill.
// It serializes the NCCL calls of its device (NCCL forbids issuing to
// communicators of one device from several threads at once). NCCL itself is
// loaded on the first collective that moves data; without it every run is
// UNAVAILABLE saying what to install.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "runtime/collective_context.h"
#include "runtime/gpu/nccl.h"
#include "support/status.h"

namespace jft::runtime::gpu {

// How long a member waits for rank 0's clique id: $JFT_COLLECTIVE_TIMEOUT_S
// seconds (a positive number, fractions allowed), else 300. INVALID_ARGUMENT
// naming the variable when it holds anything else.
StatusOr<std::chrono::milliseconds> cliqueIdTimeout();

// The exchange key of a clique: "jft/nccl_clique_id/5,7,9,11".
std::string cliqueIdKey(std::span<const int64_t> clique);

// A unique id as 256 lowercase hex digits (a key-value store may only take
// text), and back: INVALID_ARGUMENT for anything but 256 hex digits.
std::string encodeCliqueId(const ncclUniqueId& id);
StatusOr<ncclUniqueId> decodeCliqueId(const std::string& text);

class NcclCliques {
 public:
  // How NCCL is obtained on first use: Nccl::load, or a fake in tests.
  using Loader = std::function<StatusOr<const Nccl*>()>;

  explicit NcclCliques(Loader loadNccl = Nccl::load);
  ~NcclCliques();  // destroyAll()
  NcclCliques(const NcclCliques&) = delete;
  NcclCliques& operator=(const NcclCliques&) = delete;

  // Where clique ids go; null restores the in-process exchange (the default).
  void setExchange(std::shared_ptr<CliqueIdExchange> exchange);

  // The library; UNAVAILABLE saying what to install when it does not load.
  StatusOr<const Nccl*> nccl() const;

  // Rank `rank` of `clique` (validated by the caller: distinct ids, rank in
  // range), made on first use on the calling thread, whose current CUDA
  // context must be that of device `owner` (an ordinal). INVALID_ARGUMENT
  // when another device already holds that rank; the exchange's or NCCL's
  // error, naming the clique, when making it fails (nothing is remembered:
  // the next run tries again).
  StatusOr<NcclCommunicator*> communicator(std::span<const int64_t> clique, int64_t rank,
                                           int owner);

  // Destroys every communicator (NcclCommunicator::destroyAll: the process's
  // ranks finalized together). No run may be in flight. The default exchange
  // starts afresh, so a clique made again never reads its old id.
  void destroyAll();

  // How many communicators exist.
  size_t size() const;

 private:
  struct Entry {
    std::mutex mutex;  // held while the communicator is made
    std::unique_ptr<NcclCommunicator> comm;
    int owner = -1;
  };
  using Key = std::pair<std::vector<int64_t>, int64_t>;  // clique, rank

  Status make(Entry& entry, std::span<const int64_t> clique, int64_t rank,
              const Nccl& nccl, CliqueIdExchange& exchange);

  Loader load_nccl_;
  mutable std::mutex mutex_;  // guards entries_ and exchange_
  std::map<Key, std::shared_ptr<Entry>> entries_;
  std::shared_ptr<CliqueIdExchange> exchange_;
  bool default_exchange_ = true;  // exchange_ is our own in-process table
};

class NcclDeviceRunner final : public CollectiveRunner {
 public:
  // The device a runner drives.
  struct Target {
    int ordinal = 0;   // owner of its cliques' ranks
    std::string name;  // for errors
    CUstream stream = nullptr;
    std::function<Status()> make_current;  // its context, on the calling thread
    NcclRunner::ZeroFill zero_fill;        // its fill, ordered on its stream
  };

  NcclDeviceRunner(NcclCliques& cliques, Target target)
      : cliques_(cliques), target_(std::move(target)) {}

  // INVALID_ARGUMENT for a clique that is empty, names a device twice, or
  // does not have desc.ranks members, or a rank outside it; an empty
  // collective (count 0) does nothing and needs no NCCL. Otherwise finds or
  // makes the communicator, reports its pending asynchronous error if any,
  // and enqueues on the device's stream (NcclRunner::run).
  Status run(const CollectiveDesc& desc, std::span<const int64_t> clique, int64_t rank,
             uint64_t input, uint64_t output) override;

 private:
  NcclCliques& cliques_;
  Target target_;
  std::mutex mutex_;  // one thread issues this device's NCCL calls at a time
};

}  // namespace jft::runtime::gpu
