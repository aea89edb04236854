// Executable: a runtime::Program loaded on one Device, ready to run.
//
// Loading validates the program, loads every kernel once, uploads constants
// and allocates the temp arena (which also holds the scratch Triton kernels
// ask for). Each launch's parameter array is built at load time; an execution
// only writes the parameter and output addresses into it, enqueues the
// thunks in order on the device's queue and records one completion event. It
// never waits for the GPU, except to read a while loop's predicate (unknown
// trip count) or a conditional's branch index (runtime/control_flow.cc). Every use of the
// arena is ordered on the one device queue, so executions (from any thread) may follow
// each other freely.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <unordered_map>
#include <vector>

#include "ffi/call_frame.h"
#include "ffi/registry.h"
#include "ffi/user_data.h"
#include "runtime/activity_scope.h"
#include "runtime/device.h"
#include "runtime/event.h"
#include "runtime/program.h"
#include "support/status.h"

namespace jft::runtime {

struct ExecuteArgument {
  uint64_t address = 0;
  uint64_t bytes = 0;
  // The caller gives this buffer up: an output aliasing it takes its memory.
  bool donated = false;
};

struct ExecuteOutput {
  uint64_t address = 0;
  uint64_t bytes = 0;
  // The donated argument whose memory this output took over, or -1 when the
  // output is a fresh allocation (the caller owns it either way).
  int taken_from = -1;
};

struct ExecuteResult {
  std::vector<ExecuteOutput> outputs;
  // Completes when every thunk has run on the device (with its error, if any).
  EventPtr done;
};

class Executable {
 public:
  // INVALID_ARGUMENT naming the fault for a malformed program; the device's
  // error (e.g. RESOURCE_EXHAUSTED) when loading or allocating fails.
  static StatusOr<std::unique_ptr<Executable>> load(Device& device, Program program);
  // Releases kernels and memory once queued work is done with them.
  ~Executable();
  Executable(const Executable&) = delete;
  Executable& operator=(const Executable&) = delete;

  // `participant`: who this execution is among the participants of a program
  // compiled for several (collective_context.h); null for one participant.
  // A program holding collectives refuses to run without it (with a layout
  // and a runner): FAILED_PRECONDITION before anything is queued. Each
  // collective is resolved for the participant (resolveCollective; its
  // errors are INVALID_ARGUMENT, as is a resolved size its slots do not
  // hold) and handed to the runner with its slots' addresses; replica_id and
  // partition_id write the participant's ids. The runner must stay valid
  // until execute returns; the context may go once it has.
  StatusOr<ExecuteResult> execute(std::span<const ExecuteArgument> arguments,
                                  const ParticipantContext* participant = nullptr);

  const std::string& name() const { return name_; }
  Device& device() const { return device_; }
  size_t parameterCount() const { return parameter_bytes_.size(); }
  size_t outputCount() const { return output_bytes_.size(); }
  uint64_t outputBytes(size_t i) const { return output_bytes_.at(i); }
  // Device memory held while loaded: temp arena with scratch, and constants.
  uint64_t arenaBytes() const { return arena_bytes_; }
  uint64_t constantBytes() const { return constant_bytes_; }

 private:
  // One precomputed launch: `pointers[i]` points at `values[i]`.
  struct Launch {
    KernelHandle kernel = nullptr;
    LaunchDims dims;
    std::vector<uint64_t> values;
    std::vector<void*> pointers;
  };
  // A launch parameter that holds the address of a parameter/output slot.
  struct Patch {
    int launch;
    int param;
    int slot;
  };
  struct Step {
    enum class Kind : uint8_t {
      kLaunch,
      kCopy,
      kMemset,
      kGemm,
      kLibrary,
      kWhile,
      kConditional,
      kCollective,
      kParticipantId,
      kFfi
    } kind;
    int thunk = 0;           // index in the program, for error messages
    int launch = -1;         // kLaunch
    int source = -1;         // kCopy: slot
    int destination = -1;    // kCopy, kMemset, kParticipantId: slot
    bool partition = false;  // kParticipantId: the partition id, else the replica id
    uint8_t value = 0;       // kMemset
    uint64_t bytes = 0;      // kCopy, kMemset
    int gemm = -1;     // kGemm: index into gemms_; kLibrary: libraries_; kCollective:
                       // collectives_; kFfi: ffi_calls_
    int control = -1;  // kWhile: index into loops_; kConditional: conditionals_
  };
  // Control flow (runtime/control_flow.cc): nested step lists over the same
  // slots and launches.
  struct Loop {
    std::vector<Step> cond;
    int predicate = -1;
    std::vector<Step> body;
    int64_t trip_count = -1;
    bool ping_pong = false;  // WhileThunk::odd_body: the odd lists below
    std::vector<Step> odd_cond;
    int odd_predicate = -1;
    std::vector<Step> odd_body;
    std::vector<Step> odd_exit;
  };
  struct Conditional {
    int index = -1;
    bool predicate = false;
    std::vector<std::vector<Step>> branches;
  };

  Executable(Device& device, std::string name)
      : device_(device), name_(std::move(name)) {}
  Status placeMemory(const Program& program);
  Status loadKernels(const Program& program);
  Status uploadConstants(const Program& program);
  void planThunks(const Program& program, const std::vector<Thunk>& thunks,
                  std::vector<Step>& steps);
  void planControl(const Program& program, const Thunk& thunk, Step& step);
  Status allocateOutputs(std::span<const ExecuteArgument> arguments,
                         std::vector<ExecuteOutput>& outputs);
  void releaseOutputs(const std::vector<ExecuteOutput>& outputs);
  Status enqueue(std::span<const ExecuteArgument> arguments,
                 const std::vector<ExecuteOutput>& outputs,
                 const ParticipantContext* participant);
  Status enqueueList(std::span<const Step> steps, const std::string& where);
  Status enqueueStep(const Step& step);
  // A parameter or output slot: its address changes per execution (-1: none).
  bool dynamicSlot(int slot) const;
  // A product's addresses (a, b, d, bias or 0) as this execution's slots say.
  std::array<uint64_t, 4> gemmAddresses(const GemmThunk& gemm) const;
  Status enqueueGemm(const GemmThunk& gemm);
  // While a device tracer listens (runtime/activity_scope.h): the top-level
  // steps, each under its run's and step's label (executable_trace.cc).
  Status enqueueTraced(const ActivityScopeHooks& hooks, const std::string& where);
  std::string stepLabel(const Program& program, const Step& step) const;
  // Runs of consecutive launches (and library products, where the device
  // records them) of any step list (top level, loop bodies and conditions,
  // branches) replayed as one device graph each (executable_graphs.cc), from
  // the device's launchGraphsFrom() execution on.
  struct GraphRun {
    const Step* first = nullptr;  // its first step; lists never change after load
    size_t count = 0;
    GraphHandle graph = nullptr;  // made on the run's first replay
    // Its steps that read parameter or output slots, and their values (a
    // launch's parameters, a product's addresses) as the graph holds them: an
    // execution updates those whose slots moved.
    std::vector<int> followed;
    std::vector<std::vector<uint64_t>> held;
    // The execution `held` was last brought up to date in: slots move only
    // between executions, so a loop body's later iterations check nothing.
    int64_t synced = 0;
  };
  bool graphable(const Step& step) const;
  GraphLaunch graphItem(const Step& step);
  std::vector<uint64_t> graphValues(const Step& step) const;
  void planGraphRuns();
  void planGraphRuns(const std::vector<Step>& steps, const std::vector<bool>& followed);
  // The run starting at `step` when this execution replays graphs, else null.
  GraphRun* graphRunAt(const Step& step);
  Status replay(GraphRun& run, const std::string& where);
  void destroyGraphs();
  Status runLoop(const Loop& loop);
  Status runConditional(const Conditional& conditional);
  Status runCollective(const CollectiveThunk& collective);
  Status writeParticipantId(const Step& step);
  // Custom calls (runtime/ffi_call.cc): each finds its handler, builds its
  // call frame and runs its instantiate stage at load; runs in queue order.
  struct FfiCall {
    FfiThunk thunk;
    ffi::RegisteredHandler handler;
    std::unique_ptr<ffi::CallFrame> frame;
    std::unique_ptr<ffi::InstanceState> state = std::make_unique<ffi::InstanceState>();
  };
  static std::unique_ptr<FfiCall> newFfiCall(const FfiThunk& thunk);
  Status loadFfiCalls();
  Status runFfiCall(FfiCall& call);
  // Waits for the queue and reads `bytes` (1 or 4) of a slot, little-endian.
  StatusOr<int32_t> readScalar(int slot, uint64_t bytes);

  Device& device_;
  std::string name_;
  std::vector<uint64_t> parameter_bytes_;
  std::vector<uint64_t> output_bytes_;
  std::vector<int> output_aliases_;
  std::vector<KernelHandle> kernels_;

  uint64_t arena_ = 0;  // as allocated
  uint64_t arena_bytes_ = 0;
  uint64_t constants_ = 0;
  uint64_t constant_bytes_ = 0;
  uint64_t global_scratch_ = 0;  // 0 when no kernel asks for it
  uint64_t profile_scratch_ = 0;

  // Per slot: its kind and index, and its address when fixed at load time.
  std::vector<BufferSlot::Kind> slot_kinds_;
  std::vector<int> slot_indices_;
  std::vector<uint64_t> slot_bytes_;
  std::vector<int> dynamic_slots_;  // parameter and output slots

  std::mutex mutex_;  // guards everything below (written by each execution)
  std::vector<uint64_t> slot_addresses_;
  std::vector<Launch> launches_;
  std::vector<Patch> patches_;
  std::vector<Step> steps_;
  std::shared_ptr<const std::vector<std::string>> step_labels_;  // per top-level step
  std::vector<GemmThunk> gemms_;  // slots resolved at each enqueue
  std::vector<LibraryThunk> libraries_;
  std::vector<CollectiveThunk> collectives_;
  std::vector<std::unique_ptr<FfiCall>> ffi_calls_;
  const ParticipantContext* participant_ = nullptr;  // during an execution
  std::vector<uint64_t> library_addresses_;          // reused by each library step
  std::vector<Loop> loops_;
  std::vector<Conditional> conditionals_;
  std::vector<GraphRun> graph_runs_;
  std::unordered_map<const Step*, size_t> graph_run_at_;
  int64_t executions_ = 0;
  // This execution replays graphs: not before the device's chosen execution,
  // not while traced (each launch keeps its label), not once the device could
  // not make one (the program's runs launch one by one from then on).
  bool replaying_ = false;
  bool graphs_refused_ = false;
};

}  // namespace jft::runtime
