// A host interpreter for the TTIR text our emitters write, for tests only: it
// runs a kernel on buffers the test owns so that its numerics can be checked
// on a CPU against an independent reference (std::sort, plain loops).
//
// Triton's model is block-level: one program (one tt.get_program_id value)
// runs every lane of a tensor op at once, so running the programs one after
// another, each op on whole tensors, is exact, and gpu.barrier is a no-op.
// Programs run in order 0..grid-1 (x fastest, then y, then z).
//
// Pointers are host addresses; every load and store is checked against the
// buffers passed (bounds and alignment), so an emitter that indexes past a
// buffer fails the run instead of corrupting the test. An op or form the
// interpreter does not know fails with UNIMPLEMENTED naming it: nothing is
// computed by guess.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "support/status.h"

namespace jft::codegen::ttir::testing {

// One kernel parameter: a dense buffer of `bytes` bytes (kernel.h's contract:
// inputs, then outputs, then the group's scratch buffers).
struct InterpBuffer {
  void* data = nullptr;
  size_t bytes = 0;
};

struct InterpOptions {
  // Lanes a masked tt.load without `other` leaves undefined get pseudo-random
  // bits from this seed, so a kernel that reads them shows up as a wrong
  // result rather than passing by a lucky zero.
  uint64_t junk_seed = 0x9E3779B97F4A7C15ull;
};

// Runs the module's one tt.func on every program of `grid`. Fails with the
// line and op when the text cannot be parsed, an op is unsupported, or an
// access falls outside the buffers.
Status runTtir(const std::string& ttir, std::array<uint32_t, 3> grid,
               const std::vector<InterpBuffer>& args, const InterpOptions& options = {});

}  // namespace jft::codegen::ttir::testing
