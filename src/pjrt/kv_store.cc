// The key-value store over PJRT_Client_Create's callbacks.
#include "pjrt/kv_store.h"

#include <climits>

#include "pjrt/args.h"
#include "pjrt/entry_points.h"
#include "pjrt/error.h"

namespace jft::pjrt {
namespace {

// Lets the caller's callback report a failure as one of our errors.
PJRT_Error* makeCallbackError(PJRT_Error_Code code, const char* message,
                              size_t messageSize) {
  std::string text(message != nullptr ? message : "",
                   message != nullptr ? messageSize : 0);
  return toPjrtError(Status(fromPjrtCode(code), text));
}

PJRT_CallbackError kCallbackError = &makeCallbackError;

// Our error, read and freed.
Status consume(PJRT_Error* error) {
  Status status = toStatus(error);
  if (error != nullptr) {
    PJRT_Error_Destroy_Args destroy{sizeof(destroy), nullptr, error};
    errorDestroy(&destroy);
  }
  return status;
}

class CallbackKvStore final : public KvStore {
 public:
  CallbackKvStore(PJRT_KeyValueGetCallback get, void* getArg,
                  PJRT_KeyValuePutCallback put, void* putArg)
      : get_(get), get_arg_(getArg), put_(put), put_arg_(putArg) {}

  Status put(const std::string& key, const std::string& value) override {
    PJRT_KeyValuePutCallback_Args args{};
    args.struct_size = sizeof(args);
    args.key = key.data();
    args.key_size = key.size();
    args.value = value.data();
    args.value_size = value.size();
    args.callback_error = &kCallbackError;
    args.user_arg = put_arg_;
    return consume(put_(&args)).withContext("the key-value store cannot store " + key);
  }

  StatusOr<std::string> get(const std::string& key,
                            std::chrono::milliseconds timeout) override {
    PJRT_KeyValueGetCallback_Args args{};
    args.struct_size = sizeof(args);
    args.key = key.data();
    args.key_size = key.size();
    args.timeout_in_ms = static_cast<int>(std::min<int64_t>(timeout.count(), INT_MAX));
    args.callback_error = &kCallbackError;
    args.user_arg = get_arg_;
    Status status = consume(get_(&args));
    if (!status.isOk())
      return status.withContext("the key-value store has no value for " + key);
    std::string value(args.value != nullptr ? args.value : "",
                      args.value != nullptr ? args.value_size : 0);
    if (args.value != nullptr && args.value_deleter_callback != nullptr)
      args.value_deleter_callback(args.value);
    return value;
  }

 private:
  PJRT_KeyValueGetCallback get_;
  void* get_arg_;
  PJRT_KeyValuePutCallback put_;
  void* put_arg_;
};

}  // namespace

std::shared_ptr<KvStore> kvStoreFromCreateArgs(const PJRT_Client_Create_Args& args) {
  if (args.struct_size < JFT_ABI_SIZE_UP_TO(PJRT_Client_Create_Args, kv_put_user_arg))
    return nullptr;
  if (args.kv_get_callback == nullptr || args.kv_put_callback == nullptr) return nullptr;
  return std::make_shared<CallbackKvStore>(args.kv_get_callback, args.kv_get_user_arg,
                                           args.kv_put_callback, args.kv_put_user_arg);
}

}  // namespace jft::pjrt
