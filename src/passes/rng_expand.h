// rng_bit_generator -> plain integer ops, bit for bit as XLA's GPU backend
// computes it: XLA expands the op before code generation (its
// RngBitGeneratorExpander, with PHILOX as the GPU's DEFAULT algorithm) into
// Philox4x32-10 or Threefry2x32-20 over counters derived from the state, so
// the same expansion here gives the same bits and the same output state on
// every route. The state is ui64[2] (JAX's rbg keys, bitcast from u32[4])
// or ui64[3] for PHILOX:
//  - PHILOX: key = state[0]; the 128-bit counter is (state[1], state[2]) as
//    (low, high) words, or (state[1], state[0]) for a 2-word state. Each
//    counter value c, c+1, ... gives four 32-bit words, laid out round-robin
//    (element 4i+j is word j of counter c+i); 64-bit outputs join words
//    (0,1) and (2,3). The output state is the key, then the counter advanced
//    by the number of counters used (only its low word for a 2-word state).
//  - THREE_FRY: key = state[0], counter = state[1]; the output is split in
//    halves along its first even dim (or its largest), the counter of each
//    half element is state[1] + its row-major index in the half shape, and
//    Threefry's two output words fill the two halves; 64-bit outputs join the
//    two words of each counter instead (no split). The counter advances by
//    the number of counters used.
// 8/16-bit outputs take the low bits of the 32-bit output.
#pragma once

#include "ir/module.h"
#include "support/status.h"

namespace jft::passes {

// Rewrites every rng_bit_generator of integer output; returns whether any
// changed. An rng_bit_generator it cannot expand (float output, a state size
// the algorithm does not define) is left for the planner to refuse.
bool expandRngBitGenerators(ir::Module& module);

}  // namespace jft::passes
