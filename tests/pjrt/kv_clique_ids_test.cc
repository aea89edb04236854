// Clique ids through the key-value store: hex encoding against hand-worked
// values, publish/wait across threads, the timeout, and the adapter over the
// C callbacks of PJRT_Client_Create (errors made with our callback_error,
// values freed with the caller's deleter).
#include "pjrt/kv_clique_ids.h"

#include <gtest/gtest.h>

#include <cstring>
#include <thread>

#include "kv_fakes.h"
#include "pjrt/error.h"

namespace jft::pjrt::testing {
namespace {

using std::chrono::milliseconds;

TEST(HexEncoding, MatchesHandWorkedBytes) {
  EXPECT_EQ(hexEncode(std::string("\x00\x01\x7f\x80\xff", 5)), "00017f80ff");
  EXPECT_EQ(hexEncode("AZ"), "415a");  // 'A' = 0x41, 'Z' = 0x5a
  EXPECT_EQ(hexEncode(""), "");
  EXPECT_EQ(*hexDecode("00017F80ff"), std::string("\x00\x01\x7f\x80\xff", 5));
  std::string every;
  for (int b = 0; b < 256; ++b) every.push_back(static_cast<char>(b));
  EXPECT_EQ(*hexDecode(hexEncode(every)), every);
  EXPECT_EQ(hexDecode("abc").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(hexDecode("0g").status().code(), StatusCode::kInvalidArgument);
}

TEST(KvCliqueIdExchange, RoundTripsRawBytesAcrossThreads) {
  auto store = std::make_shared<MemoryKvStore>();
  KvCliqueIdExchange rank0(store);
  KvCliqueIdExchange rank1(store);
  // An NCCL unique id is 128 raw bytes, zeros included.
  std::string id(128, '\0');
  for (size_t i = 0; i < id.size(); i += 3) id[i] = static_cast<char>(i * 7);
  std::thread publisher([&] {
    std::this_thread::sleep_for(milliseconds(50));
    EXPECT_TRUE(rank0.publish("clique:0,1:op3", id).isOk());
  });
  StatusOr<std::string> got = rank1.wait("clique:0,1:op3", milliseconds(5000));
  publisher.join();
  ASSERT_TRUE(got.isOk()) << got.status().toString();
  EXPECT_EQ(*got, id);
  // What travels is text: the namespaced key and lower-case hex.
  auto stored = store->snapshot();
  ASSERT_EQ(stored.count("jax_flagtree/clique/clique:0,1:op3"), 1u);
  EXPECT_EQ(stored["jax_flagtree/clique/clique:0,1:op3"], hexEncode(id));
}

TEST(KvCliqueIdExchange, TimeoutIsDeadlineExceededNamingTheKey) {
  KvCliqueIdExchange exchange(std::make_shared<MemoryKvStore>());
  auto start = std::chrono::steady_clock::now();
  StatusOr<std::string> got = exchange.wait("never-published", milliseconds(100));
  EXPECT_GE(std::chrono::steady_clock::now() - start, milliseconds(100));
  ASSERT_FALSE(got.isOk());
  EXPECT_EQ(got.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_NE(got.status().message().find("never-published"), std::string::npos)
      << got.status().message();
}

TEST(KvCliqueIdExchange, AGarbledValueIsNamed) {
  auto store = std::make_shared<MemoryKvStore>();
  ASSERT_TRUE(store->put("jax_flagtree/clique/k", "xyz").isOk());
  StatusOr<std::string> got = KvCliqueIdExchange(store).wait("k", milliseconds(100));
  EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(got.status().message().find("published for k"), std::string::npos);
}

// C callbacks as jaxlib provides them: a blocking get over a map, answering
// a missing key with an error made by the plugin's callback_error.
struct CallbackStore {
  std::map<std::string, std::string> values;
  int deleted = 0;
  int lastTimeout = -1;
};
CallbackStore* gStore = nullptr;

void deleteValue(char* value) {
  ++gStore->deleted;
  delete[] value;
}

PJRT_Error* getCallback(PJRT_KeyValueGetCallback_Args* args) {
  auto* store = static_cast<CallbackStore*>(args->user_arg);
  store->lastTimeout = args->timeout_in_ms;
  auto found = store->values.find(std::string(args->key, args->key_size));
  if (found == store->values.end()) {
    const char* message = "timed out waiting for the key";
    return (*args->callback_error)(PJRT_Error_Code_DEADLINE_EXCEEDED, message,
                                   std::strlen(message));
  }
  args->value = new char[found->second.size()];
  std::memcpy(args->value, found->second.data(), found->second.size());
  args->value_size = found->second.size();
  args->value_deleter_callback = &deleteValue;
  return nullptr;
}

PJRT_Error* putCallback(PJRT_KeyValuePutCallback_Args* args) {
  auto* store = static_cast<CallbackStore*>(args->user_arg);
  store->values[std::string(args->key, args->key_size)] =
      std::string(args->value, args->value_size);
  return nullptr;
}

TEST(CallbackKvStore, PutGetAndErrorsGoThroughTheCallbacks) {
  CallbackStore backing;
  gStore = &backing;
  PJRT_Client_Create_Args args{};
  args.struct_size = sizeof(args);
  EXPECT_EQ(kvStoreFromCreateArgs(args), nullptr);  // no callbacks: no store
  args.kv_get_callback = &getCallback;
  args.kv_get_user_arg = &backing;
  args.kv_put_callback = &putCallback;
  args.kv_put_user_arg = &backing;
  std::shared_ptr<KvStore> store = kvStoreFromCreateArgs(args);
  ASSERT_NE(store, nullptr);

  std::string bytes("a\0b", 3);
  ASSERT_TRUE(store->put("key", bytes).isOk());
  EXPECT_EQ(backing.values["key"], bytes);
  StatusOr<std::string> got = store->get("key", milliseconds(1234));
  ASSERT_TRUE(got.isOk()) << got.status().toString();
  EXPECT_EQ(*got, bytes);
  EXPECT_EQ(backing.lastTimeout, 1234);
  EXPECT_EQ(backing.deleted, 1);  // copied, then handed back to its owner

  StatusOr<std::string> missing = store->get("absent", milliseconds(5));
  EXPECT_EQ(missing.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_NE(missing.status().message().find("timed out waiting"), std::string::npos);
  EXPECT_NE(missing.status().message().find("absent"), std::string::npos);

  // A caller whose struct ends before the callbacks has none.
  args.struct_size = offsetof(PJRT_Client_Create_Args, kv_get_callback);
  EXPECT_EQ(kvStoreFromCreateArgs(args), nullptr);
  gStore = nullptr;
}

}  // namespace
}  // namespace jft::pjrt::testing
