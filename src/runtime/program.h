// A compiled program as the runtime executes it: kernel images, buffer slots
// and a thunk list. The compiler fills it in; runtime/executable.h loads it on
// a device and runs it. Nothing here knows TTIR, PJRT or our IR.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "ffi/attributes.h"
#include "ffi/call_frame.h"
#include "runtime/collective.h"
#include "runtime/collective_groups.h"
#include "runtime/gemm.h"
#include "runtime/library_op.h"

namespace jft::runtime {

// A loadable kernel binary and its launch contract (src/kernels reports these;
// the compiler copies them here so the runtime does not depend on src/kernels).
struct KernelImage {
  enum class Param : uint8_t { kBuffer, kGlobalScratch, kProfileScratch };
  std::string binary;       // cubin or PTX text (CUDA), hsaco (HIP)
  std::string name;         // entry point
  uint32_t shared_mem = 0;  // dynamic shared memory bytes
  int num_warps = 4;        // block = num_warps * warp size threads
  // Every launch parameter in order. Each kBuffer consumes the next slot of
  // the launch's `buffers`; scratch parameters get an arena slice of the
  // sizes below, or null when the size is 0.
  std::vector<Param> params;
  uint64_t global_scratch_size = 0;  // per program instance (CTA)
  uint64_t global_scratch_align = 1;
  uint64_t profile_scratch_size = 0;
  uint64_t profile_scratch_align = 1;
};

// Where a value lives while the program runs.
struct BufferSlot {
  enum class Kind : uint8_t {
    kParameter,  // the caller's argument `index`
    kOutput,     // allocated per execution, handed to the caller as output `index`
    kTemp,       // [offset, offset + bytes) of the executable's temp arena
    kConstant,   // `data`, uploaded once when the program is loaded
  };
  Kind kind = Kind::kTemp;
  uint64_t bytes = 0;
  int index = -1;       // kParameter, kOutput
  uint64_t offset = 0;  // kTemp; a multiple of 256
  std::string data;     // kConstant
};

struct LaunchThunk {
  int kernel = 0;                         // index into Program::kernels
  std::array<uint32_t, 3> grid{1, 1, 1};  // skipped when any is 0
  std::vector<int> buffers;               // slot per kBuffer param, in order
};

// Device-to-device copy; skipped when both slots resolve to one address (an
// output that took over its donated parameter).
struct CopyThunk {
  int source = 0;  // slot
  int destination = 0;
  uint64_t bytes = 0;
};

// Sets the first `bytes` of a slot to `value` (e.g. zeroing an atomic
// accumulator before a reduction kernel).
struct MemsetThunk {
  int destination = 0;  // slot
  uint8_t value = 0;
  uint64_t bytes = 0;
};

// One library matrix product (runtime/gemm.h): slots `a` and `b` are read as
// the description's A and B, slot `d` is written as D (read too when beta is
// not 0); `bias` is the bias vector's slot when gemm.bias, else -1.
struct GemmThunk {
  GemmDesc gemm;
  int a = 0, b = 0, d = 0;
  int bias = -1;
};

// One library operation other than a product (runtime/library_op.h): FFT,
// factorizations, solves. `buffers` are slots in the order the description's
// kind documents (what it reads, then what it writes, then any workspace).
struct LibraryThunk {
  LibraryOp op;
  std::vector<int> buffers;
};

// One collective among the participants of a program compiled for several
// (runtime/collective.h, collective_groups.h): `desc` holds the kind, type,
// reduction and `count` (elements of each rank's input); its ranks and pairs
// are resolved from `groups` by each participant at execution. Slot `input`
// is read, slot `output` written (collectiveInputBytes/OutputBytes of the
// resolved description).
struct CollectiveThunk {
  CollectiveDesc desc;
  CollectiveGroups groups;
  int input = 0;
  int output = 0;
};

// replica_id / partition_id of a program compiled for several participants:
// writes this execution's replica (or partition) id as a little-endian u32
// into the first 4 bytes of slot `destination`, queue-ordered.
struct ParticipantIdThunk {
  bool partition = false;  // false: replica id
  int destination = 0;
};

// A custom call run by an XLA FFI handler (src/ffi, runtime/ffi_call.cc): the
// handler registered for `target` is called on the host in queue order with
// the buffers of `arguments` (slots read) and `results` (slots written), each
// with its element type and dims, `attributes`, the device's stream and the
// execution's user data (jax's host callbacks). Not numeric work of ours: a
// host callback, or a user's own kernel.
struct FfiThunk {
  std::string target;
  std::vector<ffi::BufferShape> argument_shapes;
  std::vector<int> arguments;  // slot per argument
  std::vector<ffi::BufferShape> result_shapes;
  std::vector<int> results;  // slot per result
  ffi::Attribute attributes = ffi::Attribute::dictionary({}, {});
  std::string location;  // the op's source line, for errors
};

struct WhileThunk;
struct ConditionalThunk;
using Thunk =
    std::variant<LaunchThunk, CopyThunk, MemsetThunk, GemmThunk, LibraryThunk, WhileThunk,
                 ConditionalThunk, CollectiveThunk, ParticipantIdThunk, FfiThunk>;

// A loop (stablehlo.while). Its lists are Program::lists entries (list
// indices larger than that of the list holding this thunk, so nesting is
// acyclic) over the program's slots. The compiler keeps loop-carried values
// in fixed slots: it copies the initial values in before this thunk, so the
// runtime only repeats lists. With trip_count >= 0 the body runs exactly that
// many times and `cond` never runs (no host read); otherwise each iteration
// runs `cond`, reads the 1-byte `predicate` slot on the host (the one wait on
// the device an execution may do) and stops at 0.
//
// Carried values have one slot each (the body list ends by copying each next
// value into it), or, with `odd_body` >= 0, two: the even lists read the
// first set and compute the next values straight into the second, the odd
// lists the other way round, so no iteration copies what it computed. After
// an odd number of bodies the values are in the second set: `odd_exit`
// copies them back.
struct WhileThunk {
  int cond = -1;       // index into Program::lists
  int predicate = -1;  // slot; unused when trip_count >= 0
  int body = -1;       // index into Program::lists
  int64_t trip_count = -1;
  int odd_cond = -1;       // with odd_body: as cond, predicate, body, on the
  int odd_predicate = -1;  // second set
  int odd_body = -1;
  int odd_exit = -1;  // with odd_body: a list

  bool pingPong() const { return odd_body >= 0; }
  // Every list it names, for walks over the program.
  std::vector<int> lists() const {
    if (!pingPong()) return {cond, body};
    return {cond, body, odd_cond, odd_body, odd_exit};
  }
};

// stablehlo.case / stablehlo.if: runs one of `branches` (Program::lists
// indices), chosen by a host read of the `index` slot. An i32 index out of
// [0, branches) runs the last branch (StableHLO's rule); with `predicate` the
// slot is one byte and non-zero runs branches[0] (if's true branch), zero
// branches[1].
struct ConditionalThunk {
  int index = -1;  // slot
  bool predicate = false;
  std::vector<int> branches;
};

struct Program {
  std::string name;
  std::vector<KernelImage> kernels;
  std::vector<BufferSlot> slots;
  std::vector<Thunk> thunks;              // executed in order on one device queue
  std::vector<std::vector<Thunk>> lists;  // nested lists of while/conditional thunks
  uint64_t temp_bytes = 0;                // arena size (liveness-packed by the compiler)
  std::vector<uint64_t> parameter_bytes;  // expected size of each argument
  std::vector<int> output_slots;          // slot of output i (kind kOutput)
  // Output i may take over parameter p's memory when the caller donates p
  // (input_output_alias); -1 where output i aliases nothing.
  std::vector<int> output_aliases;
  // Parameters the program asks the caller to give away (donated arguments):
  // the caller treats them as consumed by an execution whether or not an
  // output took their memory. Empty: none.
  std::vector<bool> donated_parameters;
};

}  // namespace jft::runtime
