// The async host-to-device transfer manager over host stand-ins: chunks in
// any order assemble the array, a buffer becomes ready only at its last
// transfer, errors reach the buffer, and misuse is refused.
#include "pjrt/transfer_manager.h"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "executable_test_support.h"
#include "pjrt/entry_points.h"

namespace jft::pjrt::testing {
namespace {

class TransferManagerTest : public ExecutableTest {
 protected:
  void TearDown() override {
    if (manager_ != nullptr) destroyManager();
    ExecutableTest::TearDown();
  }

  // f32[4] and s32[2,3] on device 0's default memory.
  void create() {
    specs_[0] = {sizeof(PJRT_ShapeSpec), nullptr, dims0_.data(), 1, PJRT_Buffer_Type_F32};
    specs_[1] = {sizeof(PJRT_ShapeSpec), nullptr, dims1_.data(), 2, PJRT_Buffer_Type_S32};
    PJRT_Client_CreateBuffersForAsyncHostToDevice_Args args{};
    args.struct_size = sizeof(args);
    args.client = client_.get();
    args.shape_specs = specs_;
    args.num_shape_specs = 2;
    args.memory = client_->devices[0]->default_memory;
    ASSERT_EQ(clientCreateBuffersForAsyncHostToDevice(&args), nullptr);
    manager_ = args.transfer_manager;
  }
  void destroyManager() {
    PJRT_AsyncHostToDeviceTransferManager_Destroy_Args args{sizeof(args), nullptr,
                                                            manager_};
    EXPECT_EQ(transferManagerDestroy(&args), nullptr);
    manager_ = nullptr;
  }

  PJRT_Error* send(int index, const void* data, int64_t offset, int64_t bytes, bool last,
                   PJRT_Event** done = nullptr) {
    PJRT_AsyncHostToDeviceTransferManager_TransferData_Args args{};
    args.struct_size = sizeof(args);
    args.transfer_manager = manager_;
    args.buffer_index = index;
    args.data = data;
    args.offset = offset;
    args.transfer_size = bytes;
    args.is_last_transfer = last;
    PJRT_Error* error = transferManagerTransferData(&args);
    if (error == nullptr) {
      if (done != nullptr) {
        *done = args.done_with_h2d_transfer;
      } else {
        EXPECT_TRUE(awaitAndDestroy(args.done_with_h2d_transfer).isOk());
      }
    }
    return error;
  }

  PJRT_Buffer* retrieve(int index, PJRT_Error** error = nullptr) {
    PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args args{};
    args.struct_size = sizeof(args);
    args.transfer_manager = manager_;
    args.buffer_index = index;
    PJRT_Error* e = transferManagerRetrieveBuffer(&args);
    if (error != nullptr)
      *error = e;
    else
      EXPECT_EQ(e, nullptr);
    if (e == nullptr) buffers_.push_back(args.buffer_out);
    return args.buffer_out;
  }

  static bool isReady(PJRT_Buffer* buffer) { return buffer->ready->isReady(); }

  std::vector<int64_t> dims0_{4};
  std::vector<int64_t> dims1_{2, 3};
  PJRT_ShapeSpec specs_[2];
  PJRT_AsyncHostToDeviceTransferManager* manager_ = nullptr;
};

TEST_F(TransferManagerTest, DescribesItsBuffers) {
  create();
  PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args count{sizeof(count), nullptr,
                                                               manager_, 0};
  ASSERT_EQ(transferManagerBufferCount(&count), nullptr);
  EXPECT_EQ(count.buffer_count, 2u);
  PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args size{sizeof(size), nullptr,
                                                             manager_, 1, 0};
  ASSERT_EQ(transferManagerBufferSize(&size), nullptr);
  EXPECT_EQ(size.buffer_size, 2u * 3u * 4u);
  size.buffer_index = 2;
  EXPECT_EQ(errorCode(transferManagerBufferSize(&size)), StatusCode::kInvalidArgument);
  PJRT_AsyncHostToDeviceTransferManager_Device_Args device{sizeof(device), nullptr,
                                                           manager_, nullptr};
  ASSERT_EQ(transferManagerDevice(&device), nullptr);
  EXPECT_EQ(device.device_out, client_->devices[0]);
  PJRT_NamedValue metadata{};
  PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args add{sizeof(add), nullptr,
                                                             manager_, &metadata, 1};
  EXPECT_EQ(transferManagerAddMetadata(&add), nullptr);
}

TEST_F(TransferManagerTest, ChunksInAnyOrderAssembleTheArray) {
  create();
  PJRT_Buffer* first = retrieve(0);
  EXPECT_TRUE(first->incomplete);
  std::vector<float> values{1.5f, -2, 3.25f, 4};
  // The second half first, then the first half as the last transfer.
  ASSERT_EQ(send(0, values.data() + 2, 8, 8, false), nullptr);
  EXPECT_FALSE(isReady(first));
  ASSERT_EQ(send(0, values.data(), 0, 8, true), nullptr);
  EXPECT_TRUE(first->ready->await().isOk());
  EXPECT_FALSE(first->incomplete);
  EXPECT_EQ(contents(first), values);

  // TransferLiteral fills a whole buffer at once.
  std::vector<int32_t> ints(6);
  std::iota(ints.begin(), ints.end(), 100);
  PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args literal{};
  literal.struct_size = sizeof(literal);
  literal.transfer_manager = manager_;
  literal.buffer_index = 1;
  literal.data = ints.data();
  literal.shape_dims = dims0_.data();  // the wrong shape first
  literal.shape_num_dims = 1;
  literal.shape_element_type = PJRT_Buffer_Type_S32;
  EXPECT_EQ(errorCode(transferManagerTransferLiteral(&literal)),
            StatusCode::kInvalidArgument);
  literal.shape_dims = dims1_.data();
  literal.shape_num_dims = 2;
  ASSERT_EQ(transferManagerTransferLiteral(&literal), nullptr);
  EXPECT_TRUE(awaitAndDestroy(literal.done_with_h2d_transfer).isOk());
  PJRT_Buffer* second = retrieve(1);
  ASSERT_TRUE(second->ready->await().isOk());
  std::vector<int32_t> got(6);
  std::memcpy(got.data(), reinterpret_cast<void*>(second->address), 24);
  EXPECT_EQ(got, ints);
}

TEST_F(TransferManagerTest, RefusesMisuse) {
  create();
  float value = 0;
  EXPECT_EQ(errorCode(send(2, &value, 0, 4, true)), StatusCode::kInvalidArgument);
  EXPECT_EQ(errorCode(send(0, &value, 14, 4, true)), StatusCode::kInvalidArgument);
  EXPECT_EQ(errorCode(send(0, nullptr, 0, 4, true)), StatusCode::kInvalidArgument);
  std::vector<float> values(4, 1);
  ASSERT_EQ(send(0, values.data(), 0, 16, true), nullptr);
  EXPECT_EQ(errorCode(send(0, values.data(), 0, 4, true)),
            StatusCode::kFailedPrecondition);
  retrieve(0);
  PJRT_Error* again = nullptr;
  retrieve(0, &again);
  EXPECT_EQ(errorCode(again), StatusCode::kFailedPrecondition);
}

TEST_F(TransferManagerTest, ExecuteRefusesABufferStillReceiving) {
  create();
  PJRT_Buffer* pending = retrieve(0);
  PJRT_LoadedExecutable* executable = load(doublingExecutable(1, {-1}));
  ASSERT_NE(executable, nullptr);
  PJRT_Buffer* const arguments[] = {pending};
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
  std::string message;
  EXPECT_EQ(errorCode(loadedExecutableExecute(&execute), &message),
            StatusCode::kFailedPrecondition);
  EXPECT_NE(message.find("still receiving"), std::string::npos) << message;

  std::vector<float> values{1, 2, 3, 4};
  ASSERT_EQ(send(0, values.data(), 0, 16, true), nullptr);
  ASSERT_EQ(loadedExecutableExecute(&execute), nullptr);
  buffers_.push_back(outputs[0]);
  loader_.loaded[0]->done->complete(Status::ok());  // the stand-in's run finishes
  ASSERT_TRUE(outputs[0]->ready->await().isOk());
  EXPECT_EQ(contents(outputs[0]), (std::vector<float>{2, 4, 6, 8}));
}

TEST_F(TransferManagerTest, ErrorsReachTheBuffers) {
  create();
  PJRT_Buffer* failed = retrieve(0);
  PJRT_Buffer* abandoned = retrieve(1);
  const std::string why = "sender went away";
  PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args error{};
  error.struct_size = sizeof(error);
  error.transfer_manager = manager_;
  error.buffer_index = 0;
  error.error_code = PJRT_Error_Code_UNAVAILABLE;
  error.error_message = why.data();
  error.error_message_size = why.size();
  ASSERT_EQ(transferManagerSetBufferError(&error), nullptr);
  Status status = failed->ready->await();
  EXPECT_EQ(status.code(), StatusCode::kUnavailable);
  EXPECT_EQ(status.message(), why);
  EXPECT_EQ(errorCode(transferManagerSetBufferError(&error)),
            StatusCode::kFailedPrecondition);

  // Destroying the manager before buffer 1's last transfer fails it.
  std::vector<int32_t> part(3, 7);
  ASSERT_EQ(send(1, part.data(), 0, 12, false), nullptr);
  destroyManager();
  EXPECT_EQ(abandoned->ready->await().code(), StatusCode::kFailedPrecondition);
}

TEST_F(TransferManagerTest, UnretrievedBuffersGoWithTheManager) {
  create();
  std::vector<float> values(4, 3);
  ASSERT_EQ(send(0, values.data(), 0, 16, true), nullptr);
  EXPECT_EQ(device(0).bytesInUse(), 16 + 24);
  destroyManager();
  EXPECT_EQ(device(0).bytesInUse(), 0);
  EXPECT_EQ(device(0).badFrees(), 0);
}

}  // namespace
}  // namespace jft::pjrt::testing
