// The PJRT buffer and client entry points over a host-memory fake device, so
// the ABI translation runs (and is sanitised) without a GPU. The reference for
// every transfer is the host data itself.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <numeric>

#include "pjrt/buffer.h"
#include "pjrt/client.h"
#include "pjrt/entry_points.h"
#include "pjrt/error.h"
#include "pjrt/event.h"

namespace jft::pjrt {
namespace {

class FakeDevice final : public runtime::Device {
 public:
  FakeDevice(int ordinal, uint64_t limit) : limit_(limit) {
    info_.ordinal = ordinal;
    info_.name = "Fake GPU";
    info_.vendor = "Test";
    info_.compute_major = 9;
    info_.core_count = 4;
  }
  const runtime::DeviceInfo& info() const override { return info_; }
  StatusOr<uint64_t> allocate(uint64_t bytes) override {
    if (bytes == 0) return uint64_t{0};
    if (stats_.bytes_in_use + static_cast<int64_t>(bytes) > static_cast<int64_t>(limit_))
      return resourceExhausted("fake device is full");
    void* memory = std::malloc(bytes);
    stats_.bytes_in_use += static_cast<int64_t>(bytes);
    sizes_[memory] = bytes;
    return reinterpret_cast<uint64_t>(memory);
  }
  void deallocate(uint64_t address, uint64_t bytes) override {
    void* memory = reinterpret_cast<void*>(address);
    EXPECT_EQ(sizes_.at(memory), bytes);
    sizes_.erase(memory);
    stats_.bytes_in_use -= static_cast<int64_t>(bytes);
    std::free(memory);
  }
  StatusOr<runtime::EventPtr> copyToDevice(uint64_t dst, const void* src, uint64_t bytes,
                                           bool) override {
    if (bytes) std::memcpy(reinterpret_cast<void*>(dst), src, bytes);
    return runtime::Event::ready();
  }
  StatusOr<runtime::EventPtr> copyToHost(void* dst, uint64_t src,
                                         uint64_t bytes) override {
    if (bytes) std::memcpy(dst, reinterpret_cast<const void*>(src), bytes);
    return runtime::Event::ready();
  }
  StatusOr<runtime::EventPtr> copyFromDevice(uint64_t dst, Device&, uint64_t src,
                                             uint64_t bytes) override {
    if (bytes)
      std::memcpy(reinterpret_cast<void*>(dst), reinterpret_cast<void*>(src), bytes);
    return runtime::Event::ready();
  }
  StatusOr<void*> allocatePinned(uint64_t bytes) override {
    if (bytes == 0) return static_cast<void*>(nullptr);
    ++pinnedLive_;
    return std::malloc(bytes);
  }
  void deallocatePinned(void* pointer) override {
    if (pointer == nullptr) return;
    --pinnedLive_;
    std::free(pointer);
  }
  StatusOr<runtime::EventPtr> copyDeviceToPinned(void* dst, uint64_t src,
                                                 uint64_t bytes) override {
    return copyToHost(dst, src, bytes);
  }
  StatusOr<runtime::EventPtr> copyPinnedToDevice(uint64_t dst, const void* src,
                                                 uint64_t bytes) override {
    return copyToDevice(dst, src, bytes, false);
  }
  int pinnedLive() const { return pinnedLive_; }
  runtime::MemoryStats memoryStats() const override { return stats_; }
  void resetPeakMemory() override {}

 private:
  runtime::DeviceInfo info_;
  uint64_t limit_;
  runtime::MemoryStats stats_;
  std::map<void*, uint64_t> sizes_;
  int pinnedLive_ = 0;
};

class FakePlatform final : public runtime::Platform {
 public:
  explicit FakePlatform(uint64_t limit) {
    devices_.push_back(std::make_unique<FakeDevice>(0, limit));
    devices_.push_back(std::make_unique<FakeDevice>(1, limit));
  }
  std::string name() const override { return "cuda"; }
  std::string version() const override { return "fake"; }
  int deviceCount() const override { return 2; }
  runtime::Device& device(int i) override { return *devices_.at(i); }

 private:
  std::vector<std::unique_ptr<FakeDevice>> devices_;
};

class FakeClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    client_ = makeClient(std::make_unique<FakePlatform>(1 << 20), ClientOptions{}, "");
  }
  void TearDown() override { client_.reset(); }

  PJRT_Client_BufferFromHostBuffer_Args fromHostArgs(const void* data,
                                                     PJRT_Buffer_Type type,
                                                     const std::vector<int64_t>& dims) {
    PJRT_Client_BufferFromHostBuffer_Args args{};
    args.struct_size = sizeof(args);
    args.client = client_.get();
    args.data = data;
    args.type = type;
    args.dims = dims.data();
    args.num_dims = dims.size();
    args.host_buffer_semantics =
        PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes;
    args.device = client_->devices[0];
    return args;
  }

  static StatusCode codeOf(PJRT_Error* error) {
    StatusCode code = toStatus(error).code();
    PJRT_Error_Destroy_Args destroy{sizeof(destroy), nullptr, error};
    errorDestroy(&destroy);
    return code;
  }

  std::vector<unsigned char> readBack(PJRT_Buffer* buffer) {
    PJRT_Buffer_ToHostBuffer_Args args{};
    args.struct_size = sizeof(args);
    args.src = buffer;
    EXPECT_EQ(bufferToHostBuffer(&args), nullptr);  // size query
    // A real destination pointer even for zero bytes: null means "size query".
    std::vector<unsigned char> out(args.dst_size + 1);
    args.dst = out.data();
    EXPECT_EQ(bufferToHostBuffer(&args), nullptr);
    EXPECT_NE(args.event, nullptr);
    if (args.event == nullptr) return {};
    EXPECT_TRUE(args.event->event->await().isOk());
    delete args.event;
    out.pop_back();
    return out;
  }

  static void destroy(PJRT_Buffer* buffer) {
    PJRT_Buffer_Destroy_Args args{sizeof(args), nullptr, buffer};
    EXPECT_EQ(bufferDestroy(&args), nullptr);
  }

  std::unique_ptr<PJRT_Client> client_;
};

TEST_F(FakeClientTest, RoundTripIsByteExact) {
  std::vector<float> host(6 * 7);
  std::iota(host.begin(), host.end(), -3.5f);
  std::vector<int64_t> dims = {6, 7};
  auto args = fromHostArgs(host.data(), PJRT_Buffer_Type_F32, dims);
  ASSERT_EQ(clientBufferFromHostBuffer(&args), nullptr);
  ASSERT_NE(args.buffer, nullptr);
  ASSERT_NE(args.done_with_host_buffer, nullptr);
  EXPECT_TRUE(args.done_with_host_buffer->event->await().isOk());
  delete args.done_with_host_buffer;
  EXPECT_EQ(args.buffer->byte_size, host.size() * sizeof(float));
  auto bytes = readBack(args.buffer);
  ASSERT_EQ(bytes.size(), host.size() * sizeof(float));
  EXPECT_EQ(std::memcmp(bytes.data(), host.data(), bytes.size()), 0);
  EXPECT_EQ(client_->devices[0]->runtime->memoryStats().bytes_in_use, 168);
  destroy(args.buffer);
  EXPECT_EQ(client_->devices[0]->runtime->memoryStats().bytes_in_use, 0);
}

TEST_F(FakeClientTest, StridedHostDataIsPacked) {
  // 2x3 int16 stored column-major; the device copy must be row-major.
  std::vector<int16_t> columnMajor = {1, 4, 2, 5, 3, 6};
  std::vector<int64_t> dims = {2, 3};
  std::vector<int64_t> strides = {2, 4};
  auto args = fromHostArgs(columnMajor.data(), PJRT_Buffer_Type_S16, dims);
  args.byte_strides = strides.data();
  args.num_byte_strides = strides.size();
  ASSERT_EQ(clientBufferFromHostBuffer(&args), nullptr);
  delete args.done_with_host_buffer;
  auto bytes = readBack(args.buffer);
  std::vector<int16_t> rowMajor(6);
  std::memcpy(rowMajor.data(), bytes.data(), bytes.size());
  EXPECT_EQ(rowMajor, (std::vector<int16_t>{1, 2, 3, 4, 5, 6}));
  destroy(args.buffer);
}

TEST_F(FakeClientTest, ZeroElementsAndScalars) {
  std::vector<int64_t> empty = {0, 5};
  auto args = fromHostArgs(nullptr, PJRT_Buffer_Type_F64, empty);
  ASSERT_EQ(clientBufferFromHostBuffer(&args), nullptr);
  delete args.done_with_host_buffer;
  EXPECT_EQ(args.buffer->byte_size, 0u);
  EXPECT_TRUE(readBack(args.buffer).empty());
  destroy(args.buffer);

  double scalar = 2.25;
  auto scalarArgs = fromHostArgs(&scalar, PJRT_Buffer_Type_F64, {});
  ASSERT_EQ(clientBufferFromHostBuffer(&scalarArgs), nullptr);
  delete scalarArgs.done_with_host_buffer;
  auto bytes = readBack(scalarArgs.buffer);
  ASSERT_EQ(bytes.size(), sizeof(double));
  double back = 0;
  std::memcpy(&back, bytes.data(), sizeof(back));
  EXPECT_EQ(back, scalar);
  destroy(scalarArgs.buffer);
}

TEST_F(FakeClientTest, BadArgumentsAreInvalidArgument) {
  std::vector<int64_t> dims = {4};
  int32_t data[4] = {};
  EXPECT_EQ(codeOf(clientBufferFromHostBuffer(nullptr)), StatusCode::kInvalidArgument);
  auto unknownType = fromHostArgs(data, static_cast<PJRT_Buffer_Type>(77), dims);
  EXPECT_EQ(codeOf(clientBufferFromHostBuffer(&unknownType)),
            StatusCode::kInvalidArgument);
  auto shortArgs = fromHostArgs(data, PJRT_Buffer_Type_S32, dims);
  shortArgs.struct_size = 16;
  EXPECT_EQ(codeOf(clientBufferFromHostBuffer(&shortArgs)), StatusCode::kInvalidArgument);
  std::vector<int64_t> huge = {int64_t{1} << 40, int64_t{1} << 40};
  auto overflow = fromHostArgs(data, PJRT_Buffer_Type_S32, huge);
  EXPECT_EQ(codeOf(clientBufferFromHostBuffer(&overflow)), StatusCode::kInvalidArgument);
  auto nullData = fromHostArgs(nullptr, PJRT_Buffer_Type_S32, dims);
  EXPECT_EQ(codeOf(clientBufferFromHostBuffer(&nullData)), StatusCode::kInvalidArgument);
  auto noTarget = fromHostArgs(data, PJRT_Buffer_Type_S32, dims);
  noTarget.device = nullptr;
  EXPECT_EQ(codeOf(clientBufferFromHostBuffer(&noTarget)), StatusCode::kInvalidArgument);
  auto badSemantics = fromHostArgs(data, PJRT_Buffer_Type_S32, dims);
  badSemantics.host_buffer_semantics = static_cast<PJRT_HostBufferSemantics>(9);
  EXPECT_EQ(codeOf(clientBufferFromHostBuffer(&badSemantics)),
            StatusCode::kInvalidArgument);
}

TEST_F(FakeClientTest, FullDeviceIsResourceExhausted) {
  std::vector<int64_t> dims = {1 << 19};
  std::vector<int32_t> data(1 << 19);
  auto args = fromHostArgs(data.data(), PJRT_Buffer_Type_S32, dims);  // 2 MiB > 1 MiB
  EXPECT_EQ(codeOf(clientBufferFromHostBuffer(&args)), StatusCode::kResourceExhausted);
}

TEST_F(FakeClientTest, CopyToOtherDeviceKeepsBytes) {
  std::vector<uint8_t> host = {9, 8, 7, 6, 5};
  std::vector<int64_t> dims = {5};
  auto args = fromHostArgs(host.data(), PJRT_Buffer_Type_U8, dims);
  ASSERT_EQ(clientBufferFromHostBuffer(&args), nullptr);
  delete args.done_with_host_buffer;
  PJRT_Buffer_CopyToDevice_Args copy{};
  copy.struct_size = sizeof(copy);
  copy.buffer = args.buffer;
  copy.dst_device = client_->devices[1];
  ASSERT_EQ(bufferCopyToDevice(&copy), nullptr);
  EXPECT_EQ(copy.dst_buffer->device, client_->devices[1]);
  EXPECT_EQ(readBack(copy.dst_buffer), host);
  destroy(copy.dst_buffer);
  destroy(args.buffer);
}

TEST_F(FakeClientTest, DeletedBufferReportsItself) {
  uint32_t value = 5;
  auto args = fromHostArgs(&value, PJRT_Buffer_Type_U32, {});
  ASSERT_EQ(clientBufferFromHostBuffer(&args), nullptr);
  delete args.done_with_host_buffer;
  PJRT_Buffer_Delete_Args del{sizeof(del), nullptr, args.buffer};
  ASSERT_EQ(bufferDelete(&del), nullptr);
  PJRT_Buffer_IsDeleted_Args isDeleted{sizeof(isDeleted), nullptr, args.buffer, false};
  ASSERT_EQ(bufferIsDeleted(&isDeleted), nullptr);
  EXPECT_TRUE(isDeleted.is_deleted);
  PJRT_Buffer_ReadyEvent_Args ready{sizeof(ready), nullptr, args.buffer, nullptr};
  ASSERT_EQ(bufferReadyEvent(&ready), nullptr);
  EXPECT_FALSE(ready.event->event->await().isOk());
  delete ready.event;
  destroy(args.buffer);
}

TEST_F(FakeClientTest, DevicesAndMemoriesDescribeTheClient) {
  ASSERT_EQ(client_->devices.size(), 2u);
  PJRT_Device_DefaultMemory_Args memory{sizeof(memory), nullptr, client_->devices[1],
                                        nullptr};
  ASSERT_EQ(deviceDefaultMemory(&memory), nullptr);
  PJRT_Memory_Kind_Args kind{sizeof(kind), nullptr, memory.memory, nullptr, 0};
  ASSERT_EQ(memoryKind(&kind), nullptr);
  EXPECT_EQ(std::string(kind.kind, kind.kind_size), "device");
  PJRT_DeviceDescription_Attributes_Args attributes{};
  attributes.struct_size = sizeof(attributes);
  attributes.device_description = &client_->devices[0]->description;
  ASSERT_EQ(deviceDescriptionAttributes(&attributes), nullptr);
  bool sawCapability = false;
  for (size_t i = 0; i < attributes.num_attributes; ++i) {
    const PJRT_NamedValue& v = attributes.attributes[i];
    EXPECT_TRUE(v.type == PJRT_NamedValue_kString || v.type == PJRT_NamedValue_kInt64 ||
                v.type == PJRT_NamedValue_kInt64List);
    if (std::string(v.name, v.name_size) == "compute_capability") {
      sawCapability = true;
      EXPECT_EQ(std::string(v.string_value, v.value_size), "9.0");
    }
  }
  EXPECT_TRUE(sawCapability);
  int assignment[2] = {-1, -1};
  PJRT_Client_DefaultDeviceAssignment_Args assign{
      sizeof(assign), nullptr, client_.get(), 2, 1, 2, assignment};
  ASSERT_EQ(clientDefaultDeviceAssignment(&assign), nullptr);
  EXPECT_EQ(assignment[0], 0);
  EXPECT_EQ(assignment[1], 1);
  assign.num_replicas = 3;
  EXPECT_EQ(codeOf(clientDefaultDeviceAssignment(&assign)), StatusCode::kInvalidArgument);
}

TEST_F(FakeClientTest, PinnedHostMemoryRoundTripsThroughEveryPath) {
  PJRT_Device* device = client_->devices[0];
  ASSERT_EQ(device->memories.size(), 2u);
  PJRT_Memory* pinned = device->memories[1];
  PJRT_Memory_Kind_Args kind{sizeof(kind), nullptr, pinned, nullptr, 0};
  ASSERT_EQ(memoryKind(&kind), nullptr);
  ASSERT_EQ(std::string(kind.kind, kind.kind_size), "pinned_host");
  auto* fake = static_cast<FakeDevice*>(device->runtime);

  std::vector<int64_t> host(257);
  std::iota(host.begin(), host.end(), -100);
  std::vector<int64_t> dims = {257};
  auto args = fromHostArgs(host.data(), PJRT_Buffer_Type_S64, dims);
  args.memory = pinned;
  ASSERT_EQ(clientBufferFromHostBuffer(&args), nullptr);
  delete args.done_with_host_buffer;
  EXPECT_EQ(args.buffer->memory, pinned);
  EXPECT_EQ(fake->pinnedLive(), 1);
  EXPECT_EQ(fake->memoryStats().bytes_in_use, 0);  // nothing in device memory
  auto asBytes = [&] {
    std::vector<unsigned char> bytes(host.size() * sizeof(int64_t));
    std::memcpy(bytes.data(), host.data(), bytes.size());
    return bytes;
  };
  EXPECT_EQ(readBack(args.buffer), asBytes());

  // pinned -> device -> pinned -> pinned
  PJRT_Buffer_CopyToMemory_Args toDevice{sizeof(toDevice), nullptr, args.buffer,
                                         device->default_memory, nullptr};
  ASSERT_EQ(bufferCopyToMemory(&toDevice), nullptr);
  EXPECT_EQ(fake->memoryStats().bytes_in_use, 257 * 8);
  PJRT_Buffer_CopyToMemory_Args toPinned{sizeof(toPinned), nullptr, toDevice.dst_buffer,
                                         pinned, nullptr};
  ASSERT_EQ(bufferCopyToMemory(&toPinned), nullptr);
  PJRT_Buffer_CopyToMemory_Args pinnedCopy{sizeof(pinnedCopy), nullptr,
                                           toPinned.dst_buffer, pinned, nullptr};
  ASSERT_EQ(bufferCopyToMemory(&pinnedCopy), nullptr);
  EXPECT_EQ(readBack(toDevice.dst_buffer), asBytes());
  EXPECT_EQ(readBack(pinnedCopy.dst_buffer), asBytes());

  PJRT_Buffer_CopyRawToHost_Args raw{};
  raw.struct_size = sizeof(raw);
  raw.buffer = pinnedCopy.dst_buffer;
  int64_t element = 0;
  raw.dst = &element;
  raw.offset = 8 * 200;
  raw.transfer_size = 8;
  ASSERT_EQ(bufferCopyRawToHost(&raw), nullptr);
  EXPECT_TRUE(raw.event->event->await().isOk());
  delete raw.event;
  EXPECT_EQ(element, host[200]);

  for (PJRT_Buffer* b :
       {args.buffer, toDevice.dst_buffer, toPinned.dst_buffer, pinnedCopy.dst_buffer})
    destroy(b);
  EXPECT_EQ(fake->pinnedLive(), 0);
  EXPECT_EQ(fake->memoryStats().bytes_in_use, 0);
}

TEST_F(FakeClientTest, MemoryStatsNeverLeakStaleMemory) {
  PJRT_Device_MemoryStats_Args stats;
  std::memset(&stats, 0xAB, sizeof(stats));
  stats.struct_size = sizeof(stats);
  stats.extension_start = nullptr;
  stats.device = client_->devices[0];
  ASSERT_EQ(deviceMemoryStats(&stats), nullptr);
  EXPECT_EQ(stats.bytes_in_use, 0);
  EXPECT_TRUE(stats.num_allocs_is_set);
  EXPECT_FALSE(stats.bytes_reserved_is_set);
  EXPECT_FALSE(stats.pool_bytes_is_set);
  EXPECT_FALSE(stats.peak_pool_bytes_is_set);
  EXPECT_EQ(stats.peak_pool_bytes, 0);

  // An older caller that knows only bytes_in_use: nothing past it is touched.
  std::memset(&stats, 0xAB, sizeof(stats));
  stats.struct_size = JFT_ABI_SIZE_UP_TO(PJRT_Device_MemoryStats_Args, bytes_in_use);
  stats.extension_start = nullptr;
  stats.device = client_->devices[0];
  ASSERT_EQ(deviceMemoryStats(&stats), nullptr);
  EXPECT_EQ(stats.bytes_in_use, 0);
  unsigned char tail[8];
  std::memcpy(tail, &stats.peak_bytes_in_use, sizeof(tail));
  for (unsigned char byte : tail) EXPECT_EQ(byte, 0xAB);
}

// 0.113 appended peak_allocated_bytes (offset 192) and its flag (offset 200).
TEST_F(FakeClientTest, MemoryStatsPeakAllocatedIsUnsetAndOlderCallersKeepTheirTail) {
  PJRT_Device_MemoryStats_Args stats;
  std::memset(&stats, 0xAB, sizeof(stats));
  stats.struct_size = 201;  // the 0.114 struct: up to peak_allocated_bytes_is_set
  stats.extension_start = nullptr;
  stats.device = client_->devices[0];
  ASSERT_EQ(deviceMemoryStats(&stats), nullptr);
  EXPECT_FALSE(stats.peak_allocated_bytes_is_set);
  EXPECT_EQ(stats.peak_allocated_bytes, 0);

  // A 0.110 caller's struct ends with peak_pool_bytes_is_set, at byte 185.
  alignas(8) unsigned char raw[sizeof(PJRT_Device_MemoryStats_Args)];
  std::memset(raw, 0xAB, sizeof(raw));
  auto* older = reinterpret_cast<PJRT_Device_MemoryStats_Args*>(raw);
  older->struct_size = 185;
  older->extension_start = nullptr;
  older->device = client_->devices[0];
  ASSERT_EQ(deviceMemoryStats(older), nullptr);
  EXPECT_EQ(raw[184], 0);  // peak_pool_bytes_is_set: written, unset
  for (size_t i = 185; i < sizeof(raw); ++i) EXPECT_EQ(raw[i], 0xAB) << "byte " << i;
}

}  // namespace
}  // namespace jft::pjrt
