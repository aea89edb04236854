// The scatter family: one stablehlo.scatter (fusion/scatter_form.h).
//
// The result starts as a copy of the operand, and no program may combine an
// update into it before the copy of that element is written. Programs of one
// grid are not ordered, so this kernel runs as ONE program: it copies the
// operand in chunks (scf.for), waits at a gpu.barrier (which also makes the
// copy's global writes visible to every thread of the program), then walks
// the updates in chunks: each lane reads its scatter indices (through the
// elemental emitter, so index arithmetic fuses), checks that its whole
// update window lies inside the operand as XLA does (an update whose window
// would leave it is dropped, which is what JAX's default scatter mode
// expects), and combines with tt.atomic_rmw (add; integer max/min; f32
// max/min through the bits, as tl.atomic_max does) or stores (replace: with
// repeated indices one of the writers wins, as on XLA GPU).
// Many programs would need the compiler to copy the operand into the output
// before the launch; until it does, large scatters are bound by one SM.
#pragma once

#include <string>

#include "codegen/ttir/kernel_signature.h"
#include "codegen/ttir/ttir_writer.h"
#include "fusion/fusion.h"
#include "ir/module.h"
#include "support/status.h"

namespace jft::codegen::ttir {

StatusOr<Launch> emitScatterKernel(TtirWriter& writer, const ir::Module& module,
                                   const ir::Function& function,
                                   const fusion::Fusion& fusion,
                                   const KernelSignature& signature,
                                   const std::string& index_type);

}  // namespace jft::codegen::ttir
