// DLPack at the PJRT boundary over host stand-ins: views of memory we do not
// own (never freed by us, the owner's callback run exactly once), external
// references deferring frees, and the stream extension.
#include "pjrt/dlpack.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "executable_test_support.h"
#include "pjrt/entry_points.h"
#include "pjrt/ffi_extension.h"

namespace jft::pjrt::testing {
namespace {

struct Owner {
  int deletes = 0;
  void* lastPointer = nullptr;
  static void onDelete(void* pointer, void* user) {
    auto* owner = static_cast<Owner*>(user);
    ++owner->deletes;
    owner->lastPointer = pointer;
  }
};

class DlpackTest : public ExecutableTest {
 protected:
  PJRT_Client_CreateViewOfDeviceBuffer_Args viewArgs(void* data,
                                                     const std::vector<int64_t>& dims,
                                                     Owner* owner) {
    PJRT_Client_CreateViewOfDeviceBuffer_Args args{};
    args.struct_size = sizeof(args);
    args.client = client_.get();
    args.device_buffer_ptr = data;
    args.dims = dims.data();
    args.num_dims = dims.size();
    args.element_type = PJRT_Buffer_Type_F32;
    args.device = client_->devices[0];
    if (owner != nullptr) {
      args.on_delete_callback = &Owner::onDelete;
      args.on_delete_callback_arg = owner;
    }
    return args;
  }

  static PJRT_Error* destroy(PJRT_Buffer* buffer) {
    PJRT_Buffer_Destroy_Args args{sizeof(args), nullptr, buffer};
    return bufferDestroy(&args);
  }
  static PJRT_Error* remove(PJRT_Buffer* buffer) {
    PJRT_Buffer_Delete_Args args{sizeof(args), nullptr, buffer};
    return bufferDelete(&args);
  }
  static PJRT_Error* increase(PJRT_Buffer* buffer) {
    PJRT_Buffer_IncreaseExternalReferenceCount_Args args{sizeof(args), nullptr, buffer};
    return bufferIncreaseExternalReferenceCount(&args);
  }
  static PJRT_Error* decrease(PJRT_Buffer* buffer) {
    PJRT_Buffer_DecreaseExternalReferenceCount_Args args{sizeof(args), nullptr, buffer};
    return bufferDecreaseExternalReferenceCount(&args);
  }
  // Takes a buffer out of the fixture's cleanup (the test destroys it).
  void disown(PJRT_Buffer* buffer) {
    buffers_.erase(std::find(buffers_.begin(), buffers_.end(), buffer));
  }

  static const PJRT_Stream_Extension* streamExtensionOfApi() {
    for (PJRT_Extension_Base* e = extensionChain(); e != nullptr; e = e->next) {
      if (e->type == PJRT_Extension_Type_Stream)
        return reinterpret_cast<const PJRT_Stream_Extension*>(e);
    }
    return nullptr;
  }
};

TEST_F(DlpackTest, ViewReadsForeignMemoryAndNeverFreesIt) {
  std::vector<float> foreign{1, 2, 3, 4, 5, 6};
  Owner owner;
  std::vector<int64_t> dims{2, 3};
  auto args = viewArgs(foreign.data(), dims, &owner);
  const int64_t inUse = device(0).bytesInUse();
  ASSERT_EQ(clientCreateViewOfDeviceBuffer(&args), nullptr);
  PJRT_Buffer* view = args.buffer;
  ASSERT_NE(view, nullptr);
  EXPECT_EQ(view->address, reinterpret_cast<uint64_t>(foreign.data()));
  EXPECT_EQ(view->dims, dims);
  EXPECT_EQ(view->byte_size, 24u);
  EXPECT_EQ(view->device, client_->devices[0]);
  EXPECT_EQ(device(0).bytesInUse(), inUse);  // nothing allocated
  // A view shares the memory: later writes by its owner are what it reads.
  foreign[5] = 60;
  EXPECT_EQ(contents(view), (std::vector<float>{1, 2, 3, 4, 5, 60}));

  ASSERT_EQ(remove(view), nullptr);
  EXPECT_EQ(owner.deletes, 1);
  EXPECT_EQ(owner.lastPointer, foreign.data());
  ASSERT_EQ(remove(view), nullptr);  // a second Delete does nothing
  ASSERT_EQ(destroy(view), nullptr);
  EXPECT_EQ(owner.deletes, 1);
  EXPECT_EQ(device(0).badFrees(), 0);  // the device never saw the memory
  EXPECT_EQ(device(0).bytesInUse(), inUse);
}

// A pinned torch tensor comes as kDLCUDAHost: JAX asks for a view in the
// device's pinned_host memory and expects the same pointer back, zero-copy.
TEST_F(DlpackTest, ViewOfPinnedHostMemoryIsAHostArrayItNeverFrees) {
  std::vector<float> foreign{1, 2, 3, 4};
  Owner owner;
  std::vector<int64_t> dims{4};
  auto args = viewArgs(foreign.data(), dims, &owner);
  PJRT_Memory* pinned = client_->devices[0]->memories.back();
  ASSERT_TRUE(unwrap(pinned)->pinned_host);
  args.device = nullptr;
  args.memory = pinned;
  ASSERT_EQ(clientCreateViewOfDeviceBuffer(&args), nullptr);
  PJRT_Buffer* view = args.buffer;
  EXPECT_EQ(view->memory, pinned);
  EXPECT_TRUE(view->pinned_host);
  EXPECT_EQ(view->host, foreign.data());
  EXPECT_EQ(view->address, 0u);
  EXPECT_EQ(view->device, client_->devices[0]);
  PJRT_Buffer_UnsafePointer_Args pointer{sizeof(pointer), nullptr, view, 0};
  ASSERT_EQ(bufferUnsafePointer(&pointer), nullptr);
  EXPECT_EQ(pointer.buffer_pointer, reinterpret_cast<uintptr_t>(foreign.data()));
  foreign[3] = 40;
  EXPECT_EQ(readBack(view), (std::vector<float>{1, 2, 3, 40}));
  ASSERT_EQ(destroy(view), nullptr);  // the owner's callback, never a free of its memory
  EXPECT_EQ(owner.deletes, 1);
  EXPECT_EQ(owner.lastPointer, foreign.data());
}

TEST_F(DlpackTest, DestroyingAViewCallsItsOwnerOnceAndNoCallbackIsFine) {
  std::vector<float> foreign{1, 2};
  Owner owner;
  std::vector<int64_t> dims{2};
  auto args = viewArgs(foreign.data(), dims, &owner);
  ASSERT_EQ(clientCreateViewOfDeviceBuffer(&args), nullptr);
  ASSERT_EQ(destroy(args.buffer), nullptr);
  EXPECT_EQ(owner.deletes, 1);

  auto noCallback = viewArgs(foreign.data(), dims, nullptr);
  ASSERT_EQ(clientCreateViewOfDeviceBuffer(&noCallback), nullptr);
  ASSERT_EQ(destroy(noCallback.buffer), nullptr);
  EXPECT_EQ(device(0).badFrees(), 0);
}

// The owner gets its memory back once our queued reads of it are done: at
// once (on the deleting thread) when the queue is idle, else when it drains.
TEST_F(DlpackTest, ViewOwnerIsCalledAfterTheQueuedWork) {
  std::vector<float> foreign{1, 2};
  Owner owner;
  std::vector<int64_t> dims{2};
  auto args = viewArgs(foreign.data(), dims, &owner);
  ASSERT_EQ(clientCreateViewOfDeviceBuffer(&args), nullptr);
  device(0).busy = true;
  ASSERT_EQ(destroy(args.buffer), nullptr);
  EXPECT_EQ(owner.deletes, 0);
  device(0).finishQueuedWork();
  EXPECT_EQ(owner.deletes, 1);
}

TEST_F(DlpackTest, ViewHeldByAnExternalReferenceCallsItsOwnerAfterTheLastOne) {
  std::vector<float> foreign{1, 2};
  Owner owner;
  std::vector<int64_t> dims{2};
  auto args = viewArgs(foreign.data(), dims, &owner);
  ASSERT_EQ(clientCreateViewOfDeviceBuffer(&args), nullptr);
  ASSERT_EQ(increase(args.buffer), nullptr);
  ASSERT_EQ(destroy(args.buffer), nullptr);
  EXPECT_EQ(owner.deletes, 0);
  ASSERT_EQ(decrease(args.buffer), nullptr);  // the last reference destroys it
  EXPECT_EQ(owner.deletes, 1);
}

TEST_F(DlpackTest, ViewRefusesBadArguments) {
  std::vector<float> foreign(6);
  std::vector<int64_t> dims{2, 3};
  // Strides with gaps address no dense array: refused, naming the fix.
  std::vector<int64_t> gapped{16, 4};
  PJRT_Buffer_MemoryLayout layout{};
  layout.struct_size = sizeof(layout);
  layout.type = PJRT_Buffer_MemoryLayout_Type_Strides;
  layout.strides.byte_strides = gapped.data();
  layout.strides.num_byte_strides = gapped.size();
  auto args = viewArgs(foreign.data(), dims, nullptr);
  args.layout = &layout;
  std::string message;
  EXPECT_EQ(errorCode(clientCreateViewOfDeviceBuffer(&args), &message),
            StatusCode::kUnimplemented);
  EXPECT_NE(message.find("contiguous()"), std::string::npos) << message;
  // Any dense order is accepted (layouts_test reads such views back).
  std::vector<int64_t> columnMajor{4, 8};
  layout.strides.byte_strides = columnMajor.data();
  ASSERT_EQ(clientCreateViewOfDeviceBuffer(&args), nullptr);
  ASSERT_EQ(destroy(args.buffer), nullptr);

  auto nullData = viewArgs(nullptr, dims, nullptr);
  EXPECT_EQ(errorCode(clientCreateViewOfDeviceBuffer(&nullData)),
            StatusCode::kInvalidArgument);
  auto noDevice = viewArgs(foreign.data(), dims, nullptr);
  noDevice.device = nullptr;
  EXPECT_EQ(errorCode(clientCreateViewOfDeviceBuffer(&noDevice)),
            StatusCode::kInvalidArgument);
  auto badType = viewArgs(foreign.data(), dims, nullptr);
  badType.element_type = PJRT_Buffer_Type_INVALID;
  EXPECT_NE(errorCode(clientCreateViewOfDeviceBuffer(&badType)), StatusCode::kOk);
  std::vector<int64_t> negative{-1};
  auto badDims = viewArgs(foreign.data(), negative, nullptr);
  EXPECT_EQ(errorCode(clientCreateViewOfDeviceBuffer(&badDims)),
            StatusCode::kInvalidArgument);
}

TEST_F(DlpackTest, ViewHonoursTheProducerStream) {
  // The stand-in device has no queue to order after a producer's stream, so a
  // stream is refused rather than ignored; none (0) is fine.
  std::vector<float> foreign{1};
  std::vector<int64_t> dims{1};
  auto args = viewArgs(foreign.data(), dims, nullptr);
  args.stream = 0x1234;
  EXPECT_EQ(errorCode(clientCreateViewOfDeviceBuffer(&args)), StatusCode::kUnimplemented);
  args.stream = 0;
  ASSERT_EQ(clientCreateViewOfDeviceBuffer(&args), nullptr);
  ASSERT_EQ(destroy(args.buffer), nullptr);
}

TEST_F(DlpackTest, ExternalReferencesDeferTheFree) {
  PJRT_Buffer* x = buffer({1, 2, 3, 4});
  const int64_t inUse = device(0).bytesInUse();
  ASSERT_EQ(increase(x), nullptr);
  ASSERT_EQ(increase(x), nullptr);
  ASSERT_EQ(remove(x), nullptr);
  EXPECT_TRUE(x->isDeleted());
  EXPECT_EQ(device(0).bytesInUse(), inUse);  // still read by the consumer
  ASSERT_EQ(decrease(x), nullptr);
  EXPECT_EQ(device(0).bytesInUse(), inUse);
  ASSERT_EQ(decrease(x), nullptr);
  EXPECT_EQ(device(0).bytesInUse(), inUse - 16);  // the last reference freed it
  EXPECT_EQ(errorCode(decrease(x)), StatusCode::kFailedPrecondition);
  EXPECT_EQ(errorCode(increase(x)), StatusCode::kFailedPrecondition);  // deleted
  EXPECT_EQ(device(0).badFrees(), 0);
}

TEST_F(DlpackTest, DestroyWhileReferencedWaitsForTheLastReference) {
  PJRT_Buffer* x = buffer({1, 2, 3, 4});
  disown(x);
  const int64_t inUse = device(0).bytesInUse();
  ASSERT_EQ(increase(x), nullptr);
  ASSERT_EQ(destroy(x), nullptr);
  EXPECT_EQ(device(0).bytesInUse(), inUse);
  ASSERT_EQ(decrease(x), nullptr);  // frees the memory and the handle
  EXPECT_EQ(device(0).bytesInUse(), inUse - 16);
  EXPECT_EQ(device(0).badFrees(), 0);
}

TEST_F(DlpackTest, StreamExtensionIsInTheChain) {
  const PJRT_Stream_Extension* stream = streamExtensionOfApi();
  ASSERT_NE(stream, nullptr);
  ASSERT_NE(stream->get_stream, nullptr);
  ASSERT_NE(stream->wait_stream, nullptr);

  // The stand-in device has no native stream to name.
  PJRT_Get_Stream_For_External_Ready_Events_Args get{};
  get.struct_size = sizeof(get);
  get.device = client_->devices[0];
  EXPECT_EQ(errorCode(stream->get_stream(&get)), StatusCode::kUnimplemented);

  PJRT_Buffer* x = buffer({1, 2});
  PJRT_Wait_Until_Buffer_Ready_On_Stream_Args wait{};
  wait.struct_size = sizeof(wait);
  wait.stream = 0x1;
  wait.buffer = x;
  EXPECT_EQ(stream->wait_stream(&wait), nullptr);
  ASSERT_EQ(remove(x), nullptr);
  EXPECT_EQ(errorCode(stream->wait_stream(&wait)), StatusCode::kFailedPrecondition);
  wait.buffer = nullptr;
  EXPECT_EQ(errorCode(stream->wait_stream(&wait)), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace jft::pjrt::testing
