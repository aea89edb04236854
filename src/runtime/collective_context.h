// What an execution of a program over several participants needs beyond its
// own device: who it is among them, and a way to run its part of a collective
// with the others. The PJRT layer builds one per participant and execution;
// programs for one participant never hold collectives and need none.
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <string>

#include "ffi/user_data.h"
#include "runtime/collective.h"
#include "runtime/collective_groups.h"
#include "support/status.h"

namespace jft::runtime {

// Runs one device's part of collectives. Implemented per platform (NCCL on
// CUDA: runtime/gpu/nccl_cliques.h); one runner per device, all of a
// process's runners sharing their communicators (keyed by clique and rank).
class CollectiveRunner {
 public:
  virtual ~CollectiveRunner() = default;
  // This device's part of `desc` (ranks = clique.size()) as rank `rank` of the
  // devices `clique` (global device ids, rank order); input and output are
  // device addresses ordered on the device's queue. Returns once enqueued.
  // The first use of a clique creates its communicator, which blocks until
  // every member has joined: each member must be driven by its own thread.
  virtual Status run(const CollectiveDesc& desc, std::span<const int64_t> clique,
                     int64_t rank, uint64_t input, uint64_t output) = 0;
};

// How a clique's id (NCCL's unique id: opaque bytes rank 0 makes) reaches the
// other members' processes. In one process an in-memory table does
// (runtime/in_process_clique_ids.h, the default); across processes the
// key-value store of jax.distributed (PJRT create options). On CUDA the key
// is "jft/nccl_clique_id/" and the clique's global device ids joined by
// commas (unique per clique within a job), the value 256 lowercase hex
// digits; a clique of one device publishes nothing. Methods may be called
// from several threads at once.
class CliqueIdExchange {
 public:
  virtual ~CliqueIdExchange() = default;
  // Rank 0's process: makes `value` known under `key` (unique per clique).
  virtual Status publish(const std::string& key, const std::string& value) = 0;
  // Everyone else: waits up to `timeout` for the value published under `key`;
  // DEADLINE_EXCEEDED naming the key when it does not come.
  virtual StatusOr<std::string> wait(const std::string& key,
                                     std::chrono::milliseconds timeout) = 0;
};

// One participant of one execution: its replica and partition in `layout`
// (the executable's device assignment) and its device's runner. Only
// borrowed for the execution; the runner may be null for a program without
// collectives.
struct ParticipantContext {
  const ParticipantLayout* layout = nullptr;
  int64_t replica = 0;
  int64_t partition = 0;
  CollectiveRunner* runner = nullptr;
  // The execution's FFI user data (PJRT_ExecuteContext: jax's host
  // callbacks), handed to custom-call handlers; null when none.
  const ffi::UserData* ffi_user_data = nullptr;
};

}  // namespace jft::runtime
