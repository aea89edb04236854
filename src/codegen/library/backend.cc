// Library, collective and custom-call groups as GroupCode.
#include "codegen/library/backend.h"

#include <utility>

#include "codegen/library/collective_call.h"
#include "codegen/library/ffi_call.h"

namespace jft::codegen::library {

std::vector<fusion::UnsupportedOp> LibraryBackend::rejects(
    const ir::Module& module, const ir::Function& scope, const fusion::Plan& plan) const {
  return libraryRejects(module, scope, plan);
}

namespace {

// The scratch kernels `transposes` lowered by `kernels`, appended to `code`.
Status addKernels(const Backend& kernels, ir::Module& module,
                  const std::vector<OperandTranspose>& transposes, GroupCode& code) {
  for (const OperandTranspose& t : transposes) {
    fusion::Plan one;
    one.fusions = {t.group};
    JFT_ASSIGN_OR_RETURN(GroupCode made, kernels.lower(module, t.scratch, one, 0));
    for (ttir::TtirKernel& kernel : made.kernels)
      code.kernels.push_back(std::move(kernel));
  }
  return Status::ok();
}

}  // namespace

StatusOr<GroupCode> LibraryBackend::lower(ir::Module& module, const ir::Function& scope,
                                          const fusion::Plan& plan, size_t g) const {
  JFT_ASSIGN_OR_RETURN(LibraryCall call,
                       lowerLibraryGroup(module, scope, plan, g, context_));
  GroupCode code;
  JFT_RETURN_IF_ERROR(addKernels(kernels_, module, call.transposes, code));
  code.after_call = code.kernels.size();
  JFT_RETURN_IF_ERROR(addKernels(kernels_, module, call.after, code));
  Call made;
  if (call.other) {
    made.thunk = runtime::LibraryThunk{call.other->op, {}};
    made.reads = call.other->inputs;
    made.writes = call.other->outputs;
    made.workspace_bytes = call.other->workspace_bytes;
  } else {
    made.thunk = runtime::GemmThunk{call.dot.gemm};
    made.reads = {call.a, call.b};
    if (call.bias) made.reads.push_back(*call.bias);
    made.writes = {call.d};
  }
  code.call = std::move(made);
  code.text = libraryCallText(call);
  return code;
}

StatusOr<GroupCode> CollectiveBackend::lower(ir::Module& module,
                                             const ir::Function& scope,
                                             const fusion::Plan& plan, size_t g) const {
  JFT_ASSIGN_OR_RETURN(CollectiveCall call,
                       lowerCollectiveGroup(module, scope, plan, g, grid_));
  Call made;
  if (call.participant_id) {
    made.thunk = runtime::ParticipantIdThunk{call.partition};
  } else {
    made.thunk = runtime::CollectiveThunk{call.desc, call.groups};
    made.reads = {call.input};
  }
  made.writes = {call.output};
  GroupCode code;
  code.call = std::move(made);
  code.text = collectiveCallText(call);
  return code;
}

StatusOr<GroupCode> FfiBackend::lower(ir::Module& module, const ir::Function& scope,
                                      const fusion::Plan& plan, size_t g) const {
  JFT_ASSIGN_OR_RETURN(FfiCall call, lowerFfiGroup(module, scope, plan, g));
  Call made;
  made.thunk = call.thunk;
  made.reads = call.inputs;
  made.writes = call.outputs;
  for (const FfiCall::Alias& alias : call.aliases)
    made.in_place.push_back(
        {alias.input, alias.output,
         static_cast<uint64_t>(module.typeOf(call.inputs[alias.input]).byteSize())});
  GroupCode code;
  JFT_RETURN_IF_ERROR(addKernels(kernels_, module, call.before, code));
  code.after_call = code.kernels.size();
  JFT_RETURN_IF_ERROR(addKernels(kernels_, module, call.after, code));
  code.call = std::move(made);
  code.text = ffiCallText(call);
  return code;
}

}  // namespace jft::codegen::library
