// Custom calls run by XLA FFI handlers. The handler is called on the host
// thread that enqueues the program, between the steps before and after it, so
// device work it enqueues on the stream it is given lands in queue order, and a
// handler that synchronizes (jax's host callbacks copy their operands to the
// host) sees every earlier step's results.
#include "runtime/ffi_call.h"

#include <memory>
#include <string>
#include <utility>

#include "ffi/execution_context.h"
#include "runtime/executable.h"

namespace jft::runtime {

Status missingFfiHandler(const std::string& target, const std::string& location) {
  return failedPrecondition(
      "custom call '" + target + "'" + (location.empty() ? "" : " at " + location) +
      " has no XLA FFI handler registered for platform CUDA with the jax-flagtree "
      "plugin; "
      "register one with jax.ffi.register_ffi_target('" +
      target + "', <capsule>, platform='CUDA') before the program is compiled");
}

std::unique_ptr<Executable::FfiCall> Executable::newFfiCall(const FfiThunk& thunk) {
  auto call = std::make_unique<FfiCall>();
  call->thunk = thunk;
  return call;
}

Status Executable::loadFfiCalls() {
  for (std::unique_ptr<FfiCall>& call : ffi_calls_) {
    const FfiThunk& thunk = call->thunk;
    std::optional<ffi::RegisteredHandler> handler = ffi::findHandler(thunk.target);
    if (!handler) return missingFfiHandler(thunk.target, thunk.location);
    if (handler->api_version != 1)
      return unimplemented("custom call '" + thunk.target + "' at " + thunk.location +
                           ": its handler was registered with the untyped custom-call "
                           "API (api_version 0), which jax-flagtree does not run; "
                           "register an XLA FFI handler (api_version=1)");
    call->handler = *handler;
    JFT_ASSIGN_OR_RETURN(call->frame,
                         ffi::CallFrame::build(thunk.argument_shapes, thunk.result_shapes,
                                               thunk.attributes));
    if (call->handler.bundle.instantiate != nullptr) {
      // No device and no buffers at this stage, as XLA does it.
      XLA_FFI_ExecutionContext ctx;
      ctx.device_ordinal = device_.info().ordinal;
      ctx.state = call->state.get();
      JFT_RETURN_IF_ERROR(ffi::invokeHandler(
          call->handler.bundle.instantiate,
          call->frame->frame(&ctx, XLA_FFI_ExecutionStage_INSTANTIATE), thunk.target));
    }
  }
  return Status::ok();
}

Status Executable::runFfiCall(FfiCall& call) {
  const FfiThunk& thunk = call.thunk;
  for (size_t i = 0; i < thunk.arguments.size(); ++i)
    call.frame->setArgument(i, reinterpret_cast<void*>(static_cast<uintptr_t>(
                                   slot_addresses_[thunk.arguments[i]])));
  for (size_t i = 0; i < thunk.results.size(); ++i)
    call.frame->setResult(i, reinterpret_cast<void*>(static_cast<uintptr_t>(
                                 slot_addresses_[thunk.results[i]])));
  XLA_FFI_ExecutionContext ctx;
  ctx.stream = device_.nativeStream();
  ctx.device_ordinal = device_.info().ordinal;
  ctx.user_data = participant_ != nullptr ? participant_->ffi_user_data : nullptr;
  ctx.state = call.state.get();
  Device& device = device_;
  ctx.allocate = [&device](size_t bytes) -> StatusOr<void*> {
    JFT_ASSIGN_OR_RETURN(uint64_t address, device.allocate(bytes));
    return reinterpret_cast<void*>(static_cast<uintptr_t>(address));
  };
  ctx.deallocate = [&device](void* data, size_t bytes) {
    device.deallocate(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(data)), bytes);
  };
  const XLA_FFI_Handler_Bundle& bundle = call.handler.bundle;
  for (auto [handler, stage] :
       {std::pair{bundle.prepare, XLA_FFI_ExecutionStage_PREPARE},
        std::pair{bundle.initialize, XLA_FFI_ExecutionStage_INITIALIZE},
        std::pair{bundle.execute, XLA_FFI_ExecutionStage_EXECUTE}}) {
    Status status =
        ffi::invokeHandler(handler, call.frame->frame(&ctx, stage), thunk.target);
    if (!status.isOk())
      return thunk.location.empty() ? status : status.withContext("at " + thunk.location);
  }
  return Status::ok();
}

}  // namespace jft::runtime
