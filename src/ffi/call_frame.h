// One custom call's XLA_FFI_CallFrame: argument and result buffers (element
// type, dims, device address), its encoded attributes, the stage and the
// execution context; and the call of a handler through it, a returned error
// becoming a Status that names the target.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ffi/attributes.h"
#include "ffi/c_abi.h"
#include "support/status.h"

namespace jft::ffi {

struct BufferShape {
  XLA_FFI_DataType dtype = XLA_FFI_DataType_INVALID;  // TOKEN for a token
  std::vector<int64_t> dims;
};

class CallFrame {
 public:
  // Addresses start null; setArgument / setResult place them per execution.
  static StatusOr<std::unique_ptr<CallFrame>> build(std::vector<BufferShape> arguments,
                                                    std::vector<BufferShape> results,
                                                    const Attribute& attributes);
  CallFrame(const CallFrame&) = delete;
  CallFrame& operator=(const CallFrame&) = delete;

  void setArgument(size_t i, void* data) { arguments_[i].data = data; }
  void setResult(size_t i, void* data) { results_[i].data = data; }
  size_t argumentCount() const { return arguments_.size(); }
  size_t resultCount() const { return results_.size(); }

  // The frame for one call: valid until the next call of frame() or the
  // CallFrame's end.
  XLA_FFI_CallFrame* frame(XLA_FFI_ExecutionContext* ctx, XLA_FFI_ExecutionStage stage);

 private:
  CallFrame() = default;
  std::vector<BufferShape> shapes_;  // arguments, then results
  std::vector<XLA_FFI_Buffer> arguments_;
  std::vector<XLA_FFI_Buffer> results_;
  std::vector<XLA_FFI_ArgType> arg_types_;
  std::vector<XLA_FFI_RetType> ret_types_;
  std::vector<void*> arg_pointers_;
  std::vector<void*> ret_pointers_;
  std::unique_ptr<EncodedAttributes> attributes_;
  XLA_FFI_CallFrame frame_{};
};

// Calls `handler` on `frame`; its error (made through our XLA_FFI_Api) comes
// back with "custom call '<target>': " before the handler's message and the
// handler's code.
Status invokeHandler(XLA_FFI_Handler* handler, XLA_FFI_CallFrame* frame,
                     std::string_view target);

}  // namespace jft::ffi
