// The custom-call route's groups as FFI calls: one custom call for an XLA FFI
// handler (api_version 4) becomes a runtime::FfiThunk naming its target, its
// operands and results with their element types and dims (tokens as TOKEN
// buffers of no bytes), and its backend_config dictionary as the handler's
// attributes (ffi/attributes.h: typed scalars and arrays, strings, bools as
// pred, nested dictionaries). The handler is looked up when the program is
// loaded (runtime/ffi_call.cc), so it may be registered after compiling.
// operand_layouts / result_layouts other than row-major (JAX's linalg calls
// ask for column-major matrices) are honoured as XLA does: the handler sees
// each buffer's logical dims, in memory laid out as the layout says, so an
// operand is first copied into that layout and a result copied out of it by
// loop kernels around the call.
#pragma once

#include <string>
#include <vector>

#include "codegen/library/library_calls.h"
#include "ffi/attributes.h"
#include "ffi/call_frame.h"
#include "fusion/fusion.h"
#include "ir/module.h"
#include "runtime/program.h"
#include "support/status.h"

namespace jft::codegen::library {

struct FfiCall {
  size_t fusion = 0;  // index into plan.fusions
  // Target, argument and result shapes, attributes and location, filled here
  // so the backend hands the thunk on as is; its slots are the compiler's.
  runtime::FfiThunk thunk;
  std::vector<ir::ValueId> inputs;   // the operands, read
  std::vector<ir::ValueId> outputs;  // the results, written
  // output_operand_aliases: result `output` is operand `input`'s buffer,
  // updated in place by the handler.
  struct Alias {
    size_t input = 0;
    size_t output = 0;
  };
  std::vector<Alias> aliases;
  // Layout copies: into the handler's layout before the call, out of it after.
  std::vector<OperandTranspose> before, after;
};

// INVALID_ARGUMENT / UNIMPLEMENTED naming the op and its source line for a
// group that is not one FFI custom call, called computations, tuple-typed
// values or aliases into tuples, an element type FFI has no code for, or an
// attribute it cannot carry, or a layout that is not a permutation of the
// value's dims.
StatusOr<FfiCall> lowerFfiGroup(ir::Module& module, const ir::Function& function,
                                const fusion::Plan& plan, size_t g);

// The attributes of backend_config as the handler sees them (exposed for tests).
StatusOr<ffi::Attribute> ffiAttributesOf(const ir::Attribute& config);

// For the route report: "ffi @target args=2 results=1 attrs=index".
std::string ffiCallText(const FfiCall& call);

}  // namespace jft::codegen::library
