// The scatter family: one stablehlo.scatter (fusion/scatter_form.h), as two
// kernels launched in order.
//
// The result starts as a copy of the operand, and no update may be combined
// into an element before its copy is written. Programs of one grid are not
// ordered, so the copy is its own kernel: "<name>" computes the operand
// (through the elemental emitter, so a fused producer such as the zeros of
// an embedding gradient is never read from memory) into the result, one
// chunk of kChunk elements per program. Then "<name>_updates" spreads the
// updates over programs, one chunk each: a lane reads its scatter indices
// (index arithmetic fuses), checks that its whole update window lies inside
// the operand as XLA does (an update whose window would leave it is dropped,
// which is what JAX's default scatter mode expects), and combines with
// tt.atomic_rmw (add; integer max/min; f32 max/min through the bits, as
// tl.atomic_max does), relaxed: the launch boundary orders the copy before
// them, and StableHLO leaves the order of colliding updates unspecified.
// Replace stores (with repeated indices one of the writers wins, as on XLA
// GPU). Combiners with no atomic (multiply, any elementwise region, f64
// max/min) loop per lane on tt.atomic_cas of the element's 32/64-bit pattern
// inside an scf.while; 8/16-bit ones with no atomic are refused by the
// planner. A complex scatter (set or add) handles the two parts of each
// element on their own: stores, or two atomic adds at 2i and 2i + 1.
//
// `deterministic` (--xla_gpu_exclude_nondeterministic_ops): a scatter whose
// result depends on the order of colliding updates
// (fusion::scatterOrderDependent) applies them in StableHLO's order instead,
// with plain loads and stores, bit-identical run to run: "<name>_updates"
// is then programs over window offsets each walking the rows in order (a
// barrier after each row), or,
// when windows of different rows may overlap (fusion::scatterWindowsDisjoint
// false), one program of one lane walking every update in order.
#pragma once

#include "codegen/ttir/kernel_inputs.h"
#include "support/status.h"

namespace jft::codegen::ttir {

StatusOr<StagedKernels> emitScatterKernels(const GroupInputs& group,
                                           bool deterministic = false);

}  // namespace jft::codegen::ttir
