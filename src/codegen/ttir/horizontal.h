// Several independent one-kernel groups as one launch (horizontal fusion):
// each member's kernel becomes a private function taking its program id,
// and a wrapper kernel hands each member a range of the combined grid, in
// order. Triton inlines the calls, so the members keep their own tiles and
// code; what is saved is the launches (loop bodies, optimizer updates over
// many parameters, where each launch costs more than its work).
#pragma once

#include <string>
#include <vector>

#include "codegen/ttir/kernel.h"
#include "support/status.h"

namespace jft::codegen::ttir {

// `members` (at least two TTIR kernels on one-dimensional grids, without
// scratch or stages, as kernelModule writes them) as kernel `name`: its
// parameters are every member's inputs, in member order, then every
// member's outputs; its grid the sum of theirs; its warps the most any asks
// for. INVALID_ARGUMENT naming the member that cannot join.
StatusOr<TtirKernel> combineKernels(const std::vector<TtirKernel>& members,
                                    const std::string& name);

// OK when `kernel` can be a member; else why not (the same refusal
// combineKernels would give).
Status checkJoinable(const TtirKernel& kernel);

}  // namespace jft::codegen::ttir
