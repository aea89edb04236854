#include "ffi/call_frame.h"

#include "ffi/api.h"

namespace jft::ffi {

StatusOr<std::unique_ptr<CallFrame>> CallFrame::build(std::vector<BufferShape> arguments,
                                                      std::vector<BufferShape> results,
                                                      const Attribute& attributes) {
  std::unique_ptr<CallFrame> f(new CallFrame());
  JFT_ASSIGN_OR_RETURN(f->attributes_, EncodedAttributes::encode(attributes));
  const size_t argumentCount = arguments.size();
  f->shapes_ = std::move(arguments);
  for (BufferShape& r : results) f->shapes_.push_back(std::move(r));
  auto buffer = [](BufferShape& shape) {
    XLA_FFI_Buffer b{};
    b.struct_size = JFT_ABI_SIZE_UP_TO(XLA_FFI_Buffer, dims);
    b.dtype = shape.dtype;
    b.data = nullptr;
    b.rank = static_cast<int64_t>(shape.dims.size());
    b.dims = shape.dims.data();
    return b;
  };
  for (size_t i = 0; i < f->shapes_.size(); ++i) {
    if (i < argumentCount) {
      f->arguments_.push_back(buffer(f->shapes_[i]));
      f->arg_types_.push_back(XLA_FFI_ArgType_BUFFER);
    } else {
      f->results_.push_back(buffer(f->shapes_[i]));
      f->ret_types_.push_back(XLA_FFI_RetType_BUFFER);
    }
  }
  for (XLA_FFI_Buffer& b : f->arguments_) f->arg_pointers_.push_back(&b);
  for (XLA_FFI_Buffer& b : f->results_) f->ret_pointers_.push_back(&b);
  return f;
}

XLA_FFI_CallFrame* CallFrame::frame(XLA_FFI_ExecutionContext* ctx,
                                    XLA_FFI_ExecutionStage stage) {
  frame_ = XLA_FFI_CallFrame{};
  // Up to `attrs`: jaxlib 0.11's handlers (its host callbacks, and users'
  // handlers built against the headers it ships) require exactly this size;
  // `future` came later, and a handler that knows it reads it only from a
  // frame that counts it.
  frame_.struct_size = JFT_ABI_SIZE_UP_TO(XLA_FFI_CallFrame, attrs);
  frame_.extension_start = nullptr;
  frame_.api = ffiApi();
  frame_.ctx = ctx;
  frame_.stage = stage;
  frame_.args.struct_size = JFT_ABI_SIZE_UP_TO(XLA_FFI_Args, args);
  frame_.args.size = static_cast<int64_t>(arguments_.size());
  frame_.args.types = arg_types_.data();
  frame_.args.args = arg_pointers_.data();
  frame_.rets.struct_size = JFT_ABI_SIZE_UP_TO(XLA_FFI_Rets, rets);
  frame_.rets.size = static_cast<int64_t>(results_.size());
  frame_.rets.types = ret_types_.data();
  frame_.rets.rets = ret_pointers_.data();
  frame_.attrs = attributes_->attrs();
  frame_.future = nullptr;
  return &frame_;
}

Status invokeHandler(XLA_FFI_Handler* handler, XLA_FFI_CallFrame* frame,
                     std::string_view target) {
  if (handler == nullptr) return Status::ok();
  Status status = takeFfiError(handler(frame));
  if (status.isOk() && frame->future != nullptr)
    return unimplemented("custom call '" + std::string(target) +
                         "': its handler returned a future; jax-flagtree runs handlers "
                         "synchronously only");
  if (status.isOk()) return status;
  return Status(status.code(),
                "custom call '" + std::string(target) + "': " + status.message());
}

}  // namespace jft::ffi
