// Buffers without a host array and raw reads, over host stand-ins:
// uninitialized buffers, error buffers (their error reaches every reader and
// Execute), alias buffers, CopyRawToHost and its future variant.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "executable_test_support.h"
#include "pjrt/entry_points.h"

namespace jft::pjrt::testing {
namespace {

bool isReady(PJRT_Event* event) {
  PJRT_Event_IsReady_Args args{sizeof(args), nullptr, event, false};
  EXPECT_EQ(eventIsReady(&args), nullptr);
  return args.is_ready;
}

class BufferCreateTest : public ExecutableTest {
 protected:
  PJRT_Buffer* errorBuffer(PJRT_Error_Code code, const std::string& message,
                           const std::vector<int64_t>& dims) {
    PJRT_Client_CreateErrorBuffer_Args args{};
    args.struct_size = sizeof(args);
    args.client = client_.get();
    args.error_code = code;
    args.error_message = message.data();
    args.error_message_size = message.size();
    args.shape_dims = dims.data();
    args.shape_num_dims = dims.size();
    args.shape_element_type = PJRT_Buffer_Type_F32;
    args.memory = client_->devices[0]->default_memory;
    EXPECT_EQ(clientCreateErrorBuffer(&args), nullptr);
    buffers_.push_back(args.buffer);
    return args.buffer;
  }

  Status readyOf(PJRT_Buffer* buffer) {
    PJRT_Buffer_ReadyEvent_Args args{sizeof(args), nullptr, buffer, nullptr};
    EXPECT_EQ(bufferReadyEvent(&args), nullptr);
    return awaitAndDestroy(args.event);
  }

  // CopyRawToHost of [offset, offset + bytes) into a fresh host array.
  std::vector<char> rawRead(PJRT_Buffer* buffer, int64_t offset, int64_t bytes,
                            Status* status) {
    std::vector<char> out(static_cast<size_t>(bytes));
    PJRT_Buffer_CopyRawToHost_Args args{};
    args.struct_size = sizeof(args);
    args.buffer = buffer;
    args.dst = out.data();
    args.offset = offset;
    args.transfer_size = bytes;
    *status = takeStatus(bufferCopyRawToHost(&args));
    if (status->isOk()) *status = awaitAndDestroy(args.event);
    return out;
  }
};

TEST_F(BufferCreateTest, UninitializedBufferHasTheShapeAndSizeAsked) {
  std::vector<int64_t> dims{3, 5};
  PJRT_Client_CreateUninitializedBuffer_Args args{};
  args.struct_size = sizeof(args);
  args.client = client_.get();
  args.shape_dims = dims.data();
  args.shape_num_dims = dims.size();
  args.shape_element_type = PJRT_Buffer_Type_S16;
  args.device = client_->devices[1];
  ASSERT_EQ(clientCreateUninitializedBuffer(&args), nullptr);
  buffers_.push_back(args.buffer);
  EXPECT_EQ(args.buffer->dims, dims);
  EXPECT_EQ(args.buffer->type, PJRT_Buffer_Type_S16);
  EXPECT_EQ(args.buffer->device, client_->devices[1]);
  PJRT_Buffer_OnDeviceSizeInBytes_Args size{sizeof(size), nullptr, args.buffer, 0};
  ASSERT_EQ(bufferOnDeviceSizeInBytes(&size), nullptr);
  EXPECT_EQ(size.on_device_size_in_bytes, 3u * 5u * 2u);
  EXPECT_NE(args.buffer->address, 0u);
  EXPECT_TRUE(readyOf(args.buffer).isOk());

  // Pinned host memory wins over the device.
  PJRT_Memory* pinned = client_->devices[0]->memories.back();
  ASSERT_TRUE(unwrap(pinned)->pinned_host);
  args.memory = pinned;
  ASSERT_EQ(clientCreateUninitializedBuffer(&args), nullptr);
  buffers_.push_back(args.buffer);
  EXPECT_TRUE(args.buffer->pinned_host);
  EXPECT_EQ(args.buffer->device, client_->devices[0]);

  args.shape_element_type = PJRT_Buffer_Type_INVALID;
  EXPECT_EQ(errorCode(clientCreateUninitializedBuffer(&args)),
            StatusCode::kInvalidArgument);
}

TEST_F(BufferCreateTest, ErrorBufferCarriesItsErrorToEveryReader) {
  PJRT_Buffer* bad =
      errorBuffer(PJRT_Error_Code_RESOURCE_EXHAUSTED, "upstream ran dry", {4});
  EXPECT_EQ(bad->byte_size, 16u);
  Status ready = readyOf(bad);
  EXPECT_EQ(ready.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(ready.message(), "upstream ran dry");

  std::vector<float> host(4);
  PJRT_Buffer_ToHostBuffer_Args toHost{};
  toHost.struct_size = sizeof(toHost);
  toHost.src = bad;
  toHost.dst = host.data();
  toHost.dst_size = 16;
  ASSERT_EQ(bufferToHostBuffer(&toHost), nullptr);
  EXPECT_EQ(awaitAndDestroy(toHost.event).code(), StatusCode::kResourceExhausted);

  Status raw;
  rawRead(bad, 4, 8, &raw);
  EXPECT_EQ(raw.code(), StatusCode::kResourceExhausted);

  // Execute launches nothing; its outputs carry the buffer's error, naming
  // the argument.
  PJRT_LoadedExecutable* executable = load(doublingExecutable(1, {-1}));
  ASSERT_NE(executable, nullptr);
  PJRT_Buffer* const arguments[] = {bad};
  PJRT_Buffer* const* lists[] = {arguments};
  PJRT_Buffer* outputs[1] = {};
  PJRT_Buffer** outputLists[] = {outputs};
  PJRT_ExecuteOptions options{};
  options.struct_size = sizeof(options);
  PJRT_LoadedExecutable_Execute_Args execute{};
  execute.struct_size = sizeof(execute);
  execute.executable = executable;
  execute.options = &options;
  execute.argument_lists = lists;
  execute.num_devices = 1;
  execute.num_args = 1;
  execute.output_lists = outputLists;
  ASSERT_EQ(loadedExecutableExecute(&execute), nullptr);
  buffers_.push_back(outputs[0]);
  ASSERT_FALSE(loader_.loaded.empty());
  EXPECT_EQ(loader_.loaded[0]->executions, 0);  // its memory does not exist
  Status out = readyOf(outputs[0]);
  EXPECT_EQ(out.code(), StatusCode::kResourceExhausted);
  EXPECT_NE(out.message().find("upstream ran dry"), std::string::npos) << out.message();
  EXPECT_NE(out.message().find("argument 0"), std::string::npos) << out.message();
  EXPECT_EQ(outputs[0]->address, 0u);

  // A copy to another device is an error buffer too, not a read of nothing.
  PJRT_Buffer_CopyToDevice_Args copy{};
  copy.struct_size = sizeof(copy);
  copy.buffer = bad;
  copy.dst_device = client_->devices[1];
  ASSERT_EQ(bufferCopyToDevice(&copy), nullptr);
  buffers_.push_back(copy.dst_buffer);
  EXPECT_EQ(readyOf(copy.dst_buffer).code(), StatusCode::kResourceExhausted);
}

TEST_F(BufferCreateTest, ErrorBufferRefusesOkAndUnknownCodes) {
  std::vector<int64_t> dims{2};
  PJRT_Client_CreateErrorBuffer_Args args{};
  args.struct_size = sizeof(args);
  args.client = client_.get();
  args.shape_dims = dims.data();
  args.shape_num_dims = 1;
  args.shape_element_type = PJRT_Buffer_Type_F32;
  args.memory = client_->devices[0]->default_memory;
  args.error_code = PJRT_Error_Code_OK;
  EXPECT_EQ(errorCode(clientCreateErrorBuffer(&args)), StatusCode::kInvalidArgument);
  args.error_code = static_cast<PJRT_Error_Code>(99);
  EXPECT_EQ(errorCode(clientCreateErrorBuffer(&args)), StatusCode::kInvalidArgument);
  args.error_code = PJRT_Error_Code_INTERNAL;
  args.memory = nullptr;
  EXPECT_EQ(errorCode(clientCreateErrorBuffer(&args)), StatusCode::kInvalidArgument);
}

TEST_F(BufferCreateTest, CopyRawToHostReadsTheBytesAtTheOffset) {
  PJRT_Buffer* source = buffer({1, 2, 3, 4, 5, 6, 7, 8});
  Status status;
  std::vector<char> raw = rawRead(source, 8, 12, &status);
  ASSERT_TRUE(status.isOk()) << status.toString();
  std::vector<float> got(3);
  std::memcpy(got.data(), raw.data(), 12);
  EXPECT_EQ(got, (std::vector<float>{3, 4, 5}));

  rawRead(source, 24, 12, &status);  // runs past the end (32 bytes)
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  rawRead(source, -4, 4, &status);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
}

TEST_F(BufferCreateTest, CopyRawToHostFutureCopiesOnceTheDestinationIsGiven) {
  PJRT_Buffer* source = buffer({10, 20, 30, 40});
  PJRT_Buffer_CopyRawToHostFuture_Args args{};
  args.struct_size = sizeof(args);
  args.buffer = source;
  args.offset = 4;
  args.transfer_size = 8;
  ASSERT_EQ(bufferCopyRawToHostFuture(&args), nullptr);
  ASSERT_NE(args.future_ready_callback, nullptr);
  EXPECT_FALSE(isReady(args.event));  // nowhere to copy to yet

  std::vector<float> got(2, -1);
  PJRT_Buffer_CopyRawToHostFuture_Callback_Args ready{};
  ready.struct_size = sizeof(ready);
  ready.callback_data = args.callback_data;
  ready.error_code = PJRT_Error_Code_OK;
  ready.dst = got.data();
  args.future_ready_callback(&ready);
  ASSERT_TRUE(awaitAndDestroy(args.event).isOk());
  EXPECT_EQ(got, (std::vector<float>{20, 30}));

  // The caller's own failure to produce a destination becomes the event's error.
  ASSERT_EQ(bufferCopyRawToHostFuture(&args), nullptr);
  const std::string why = "no host memory";
  ready.callback_data = args.callback_data;
  ready.error_code = PJRT_Error_Code_CANCELLED;
  ready.error_message = why.data();
  ready.error_message_size = why.size();
  ready.dst = nullptr;
  args.future_ready_callback(&ready);
  Status failed = awaitAndDestroy(args.event);
  EXPECT_EQ(failed.code(), StatusCode::kCancelled);
  EXPECT_EQ(failed.message(), why);

  args.transfer_size = 40;
  EXPECT_EQ(errorCode(bufferCopyRawToHostFuture(&args)), StatusCode::kInvalidArgument);
}

TEST_F(BufferCreateTest, AliasBufferReadsItsFulfillerOnceFulfilled) {
  std::vector<int64_t> dims{3};
  PJRT_Client_CreateAliasBuffer_Args create{};
  create.struct_size = sizeof(create);
  create.client = client_.get();
  create.memory = client_->devices[0]->default_memory;
  create.shape_dims = dims.data();
  create.shape_num_dims = 1;
  create.shape_element_type = PJRT_Buffer_Type_F32;
  ASSERT_EQ(clientCreateAliasBuffer(&create), nullptr);
  PJRT_Buffer* alias = create.alias_buffer;

  // A read asked for before the fulfilment waits for it.
  std::vector<float> early(3, -1);
  PJRT_Buffer_ToHostBuffer_Args toHost{};
  toHost.struct_size = sizeof(toHost);
  toHost.src = alias;
  toHost.dst = early.data();
  toHost.dst_size = 12;
  ASSERT_EQ(bufferToHostBuffer(&toHost), nullptr);
  EXPECT_FALSE(isReady(toHost.event));

  PJRT_Buffer* source = buffer({7, 8, 9});
  PJRT_Client_FulfillAliasBuffer_Args fulfil{};
  fulfil.struct_size = sizeof(fulfil);
  fulfil.client = client_.get();
  fulfil.buffer = source;
  fulfil.status_code = PJRT_Error_Code_OK;
  fulfil.fulfill_alias_buffer_cb = create.fulfill_alias_buffer_cb;
  ASSERT_EQ(clientFulfillAliasBuffer(&fulfil), nullptr);
  ASSERT_TRUE(awaitAndDestroy(toHost.event).isOk());
  EXPECT_EQ(early, (std::vector<float>{7, 8, 9}));
  EXPECT_EQ(alias->address, source->address);
  // The alias holds the source's memory: deleting the source defers its free.
  EXPECT_EQ(source->external_references, 1);
  PJRT_Buffer_Destroy_Args destroy{sizeof(destroy), nullptr, alias};
  ASSERT_EQ(bufferDestroy(&destroy), nullptr);
  EXPECT_EQ(source->external_references, 0);
}

TEST_F(BufferCreateTest, AliasFulfilledWithAnErrorOrAfterItsDeletion) {
  std::vector<int64_t> dims{2};
  PJRT_Client_CreateAliasBuffer_Args create{};
  create.struct_size = sizeof(create);
  create.client = client_.get();
  create.memory = client_->devices[0]->default_memory;
  create.shape_dims = dims.data();
  create.shape_num_dims = 1;
  create.shape_element_type = PJRT_Buffer_Type_F32;
  ASSERT_EQ(clientCreateAliasBuffer(&create), nullptr);
  buffers_.push_back(create.alias_buffer);
  const std::string why = "producer failed";
  PJRT_Client_FulfillAliasBuffer_Args fulfil{};
  fulfil.struct_size = sizeof(fulfil);
  fulfil.client = client_.get();
  fulfil.status_code = PJRT_Error_Code_ABORTED;
  fulfil.error_message = why.data();
  fulfil.error_message_size = why.size();
  fulfil.fulfill_alias_buffer_cb = create.fulfill_alias_buffer_cb;
  ASSERT_EQ(clientFulfillAliasBuffer(&fulfil), nullptr);
  Status ready = readyOf(create.alias_buffer);
  EXPECT_EQ(ready.code(), StatusCode::kAborted);
  EXPECT_EQ(ready.message(), why);

  // Deleted before its fulfilment: waiters learn so, the fulfilment is refused.
  ASSERT_EQ(clientCreateAliasBuffer(&create), nullptr);
  PJRT_Buffer_ReadyEvent_Args readyArgs{sizeof(readyArgs), nullptr, create.alias_buffer,
                                        nullptr};
  ASSERT_EQ(bufferReadyEvent(&readyArgs), nullptr);
  PJRT_Buffer_Destroy_Args destroy{sizeof(destroy), nullptr, create.alias_buffer};
  ASSERT_EQ(bufferDestroy(&destroy), nullptr);
  EXPECT_EQ(awaitAndDestroy(readyArgs.event).code(), StatusCode::kFailedPrecondition);
  fulfil.status_code = PJRT_Error_Code_OK;
  fulfil.buffer = buffer({1, 2});
  fulfil.fulfill_alias_buffer_cb = create.fulfill_alias_buffer_cb;
  EXPECT_EQ(errorCode(clientFulfillAliasBuffer(&fulfil)),
            StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace jft::pjrt::testing
