// NCCL: the library opened once per process, communicators whose lifetime an
// object owns, and the runner that executes a CollectiveDesc
// (runtime/collective.h) on one or more ranks' device buffers.
//
// Every NCCL call that fails becomes a Status naming the collective, the
// call and NCCL's own words; nothing here aborts the process. Communicators
// are blocking (NCCL's default), so a call returns once its work is queued
// on the given stream; a peer's failure surfaces later through
// NcclCommunicator::asyncError.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/collective.h"
#include "runtime/gpu/library_loader.h"
#include "runtime/gpu/nccl_api.h"
#include "support/status.h"

namespace jft::runtime::gpu {

struct Nccl {
  // The process-wide library. Looks for $JFT_NCCL_LIBRARY when set, then
  // libnccl.so.2, libnccl.so. UNAVAILABLE when none loads or one lacks an
  // entry point we need.
  static StatusOr<const Nccl*> load();

  JFT_ENTRY_POINTS(JFT_NCCL_FUNCTIONS)

  std::string library_name;  // the file that was opened

  // ncclCommFinalize (NCCL 2.14 and newer; null where the library lacks it):
  // NcclCommunicator::destroyAll finalizes several ranks in one group with it.
  ncclResult_t (*comm_finalize)(ncclComm_t) = nullptr;

  // OK for ncclSuccess; otherwise a status "<what> failed: ncclInvalidArgument
  // (4): <NCCL's error string>". ncclInvalidArgument becomes INVALID_ARGUMENT,
  // ncclInvalidUsage FAILED_PRECONDITION, ncclRemoteError, ncclSystemError and
  // ncclTimeout UNAVAILABLE (a peer or the network went away), the rest INTERNAL.
  Status check(ncclResult_t result, const std::string& what) const;
};

// The NCCL spellings of our types and reductions.
ncclDataType_t ncclDataTypeOf(CollectiveType type);
ncclRedOp_t ncclRedOpOf(CollectiveReduction reduction);

// A fresh unique id: rank 0 of a multi-process communicator makes it and
// hands its 128 bytes to the other processes (a key-value store, later).
StatusOr<ncclUniqueId> newNcclUniqueId(const Nccl& nccl);

// One rank of an NCCL communicator, destroyed with the object.
class NcclCommunicator {
 public:
  // Rank `rank` of `size` ranks that every participant joins with the same
  // `id` (ncclCommInitRank; it blocks until all have joined). Runs on the
  // calling thread's current CUDA context: make the device's current first.
  static StatusOr<std::unique_ptr<NcclCommunicator>> create(const Nccl& nccl,
                                                            const ncclUniqueId& id,
                                                            int rank, int size);
  // One process driving several devices (ncclCommInitAll): rank i on device
  // ordinal ordinals[i].
  static StatusOr<std::vector<std::unique_ptr<NcclCommunicator>>> createAll(
      const Nccl& nccl, const std::vector<int>& ordinals);

  // ncclCommDestroy, or ncclCommAbort when the communicator reported an
  // asynchronous error (a destroy could wait for peers that are gone).
  ~NcclCommunicator();
  // Destroys several communicators this thread owns (e.g. every rank of one
  // process). Destroying is an intra-node collective in NCCL: one thread
  // destroying ranks one after another can hang on the first, waiting for
  // the others. So the healthy ones are finalized together inside one NCCL
  // group (ncclCommFinalize, where the library has it), then each is
  // destroyed, which is then local; one with an asynchronous error is aborted.
  static void destroyAll(std::vector<std::unique_ptr<NcclCommunicator>> comms);
  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;

  ncclComm_t handle() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }

  // OK, or the error a peer or the network reported since (ncclCommGetAsyncError).
  Status asyncError() const;
  // Tears the communicator down at once (ncclCommAbort); the destructor
  // then does nothing. For when a peer is known to be gone.
  Status abort();

 private:
  NcclCommunicator(const Nccl& nccl, ncclComm_t comm, int rank, int size)
      : nccl_(nccl), comm_(comm), rank_(rank), size_(size) {}

  const Nccl& nccl_;
  ncclComm_t comm_ = nullptr;
  int rank_ = 0;
  int size_ = 1;
  bool finalized_ = false;  // by destroyAll: the destructor only destroys
};

class NcclRunner {
 public:
  // Writes `bytes` zero bytes at `address`, ordered on `stream` (the
  // device's fill, cuMemsetD8Async): a permute target nobody sends to.
  using ZeroFill =
      std::function<Status(uint64_t address, uint64_t bytes, CUstream stream)>;

  // One rank's part of a collective: its communicator, the stream its
  // buffers are ordered on, and its input and output (runtime/collective.h).
  struct Participant {
    const NcclCommunicator* comm = nullptr;
    CUstream stream = nullptr;
    uint64_t input = 0;
    uint64_t output = 0;
  };

  NcclRunner(const Nccl& nccl, ZeroFill zero_fill)
      : nccl_(nccl), zero_fill_(std::move(zero_fill)) {}

  // This rank's part (one process per device). Validates (INVALID_ARGUMENT:
  // the description, a communicator of another size, a null buffer), then
  // enqueues; an empty collective does nothing. Returns once enqueued.
  Status run(const CollectiveDesc& desc, const Participant& participant) const;

  // The parts of several ranks that this thread drives (one process over
  // several devices): NCCL needs them issued inside one group, else the
  // first would wait for the others forever. Ranks need not be all of them.
  Status runGroup(const CollectiveDesc& desc,
                  const std::vector<Participant>& participants) const;

 private:
  Status check(const CollectiveDesc& desc, const Participant& p) const;
  // Issues one rank's NCCL calls (inside the caller's group).
  Status enqueue(const CollectiveDesc& desc, const Participant& p) const;

  const Nccl& nccl_;
  ZeroFill zero_fill_;
};

}  // namespace jft::runtime::gpu
