// stablehlo.convolution as a library product fed by TTIR kernels.
#pragma once

#include "codegen/library/library_calls.h"
#include "fusion/fusion.h"
#include "ir/module.h"
#include "support/status.h"

namespace jft::codegen::library {

// OK when lowerConvolution handles `conv`; else why not (naming its types).
Status checkConvolution(const ir::Module& module, const ir::Op& conv);

// The call for `conv` of library group `group` (checkConvolution passed).
// Adds the values of its intermediate buffers to `module`.
StatusOr<LibraryCall> lowerConvolution(ir::Module& module, const fusion::Fusion& group,
                                       const ir::Op& conv);

}  // namespace jft::codegen::library
