// Two clients in one test process standing in for two processes of a
// jax.distributed job: node_id/num_nodes in the create options and a shared
// key-value store. Each must list the job's four devices with the same global
// ids (local index + the lower nodes' device counts), address only its own
// two, and place programs over devices of both.
#include <gtest/gtest.h>

#include <thread>

#include "executable_test_support.h"
#include "kv_fakes.h"
#include "pjrt/device_exchange.h"
#include "pjrt/entry_points.h"

namespace jft::pjrt::testing {
namespace {

using std::chrono::milliseconds;

ClientOptions nodeOptions(int node, int nodes) {
  ClientOptions options;
  options.node_id = node;
  options.num_nodes = nodes;
  return options;
}

// Two nodes of two stand-in devices each, created concurrently (each waits
// for the other's device list).
std::pair<std::unique_ptr<PJRT_Client>, std::unique_ptr<PJRT_Client>> twoNodes(
    std::shared_ptr<KvStore> store) {
  StatusOr<std::unique_ptr<PJRT_Client>> first = internalError("not run");
  std::thread other([&] {
    first = assembleClient(std::make_unique<HostPlatform>(2), nodeOptions(0, 2),
                           compiler::Options{}, store);
  });
  StatusOr<std::unique_ptr<PJRT_Client>> second = assembleClient(
      std::make_unique<HostPlatform>(2), nodeOptions(1, 2), compiler::Options{}, store);
  other.join();
  EXPECT_TRUE(first.isOk()) << first.status().toString();
  EXPECT_TRUE(second.isOk()) << second.status().toString();
  if (!first.isOk() || !second.isOk()) return {};
  return {std::move(first).value(), std::move(second).value()};
}

TEST(MultiProcess, EachNodeSeesEveryDeviceAndAddressesItsOwn) {
  auto [node0, node1] = twoNodes(std::make_shared<MemoryKvStore>());
  ASSERT_NE(node0, nullptr);
  ASSERT_NE(node1, nullptr);
  for (int node = 0; node < 2; ++node) {
    PJRT_Client& client = node == 0 ? *node0 : *node1;
    SCOPED_TRACE("node " + std::to_string(node));
    PJRT_Client_ProcessIndex_Args index{};
    index.struct_size = sizeof(index);
    index.client = &client;
    ASSERT_EQ(clientProcessIndex(&index), nullptr);
    EXPECT_EQ(index.process_index, node);

    PJRT_Client_Devices_Args all{};
    all.struct_size = sizeof(all);
    all.client = &client;
    ASSERT_EQ(clientDevices(&all), nullptr);
    ASSERT_EQ(all.num_devices, 4u);
    for (size_t i = 0; i < 4; ++i) {
      const PJRT_Device& d = *all.devices[i];
      EXPECT_EQ(d.description.id, static_cast<int>(i));  // 0,1 on node 0; 2,3 on node 1
      EXPECT_EQ(d.description.process_index, static_cast<int>(i / 2));
      EXPECT_EQ(d.local_hardware_id, static_cast<int>(i % 2));
      PJRT_Device_IsAddressable_Args addressable{};
      addressable.struct_size = sizeof(addressable);
      addressable.device = all.devices[i];
      ASSERT_EQ(deviceIsAddressable(&addressable), nullptr);
      EXPECT_EQ(addressable.is_addressable, static_cast<int>(i / 2) == node);
      EXPECT_EQ(d.description.kind, "Host stand-in");  // carried across
    }

    PJRT_Client_AddressableDevices_Args own{};
    own.struct_size = sizeof(own);
    own.client = &client;
    ASSERT_EQ(clientAddressableDevices(&own), nullptr);
    ASSERT_EQ(own.num_addressable_devices, 2u);
    EXPECT_EQ(own.addressable_devices[0]->description.id, 2 * node);
    EXPECT_EQ(own.addressable_devices[1]->description.id, 2 * node + 1);

    PJRT_Client_LookupDevice_Args lookup{};
    lookup.struct_size = sizeof(lookup);
    lookup.client = &client;
    lookup.id = 3;
    ASSERT_EQ(clientLookupDevice(&lookup), nullptr);
    EXPECT_EQ(lookup.device->description.process_index, 1);
  }
}

TEST(MultiProcess, ADeviceOfAnotherProcessIsRefusedWhereARuntimeIsNeeded) {
  auto [node0, node1] = twoNodes(std::make_shared<MemoryKvStore>());
  ASSERT_NE(node0, nullptr);
  PJRT_Device* remote = node0->all_devices[2];
  ASSERT_FALSE(remote->addressable());
  PJRT_Device_DefaultMemory_Args memory{};
  memory.struct_size = sizeof(memory);
  memory.device = remote;
  std::string text;
  EXPECT_EQ(errorCode(deviceDefaultMemory(&memory), &text),
            StatusCode::kFailedPrecondition);
  EXPECT_NE(text.find("device 2 belongs to process 1"), std::string::npos) << text;
  PJRT_Device_MemoryStats_Args stats{};
  stats.struct_size = sizeof(stats);
  stats.device = remote;
  EXPECT_EQ(errorCode(deviceMemoryStats(&stats)), StatusCode::kFailedPrecondition);

  std::vector<float> values{1, 2};
  std::vector<int64_t> dims{2};
  PJRT_Client_BufferFromHostBuffer_Args upload{};
  upload.struct_size = sizeof(upload);
  upload.client = node0.get();
  upload.data = values.data();
  upload.type = PJRT_Buffer_Type_F32;
  upload.dims = dims.data();
  upload.num_dims = 1;
  upload.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
  upload.device = remote;
  EXPECT_EQ(errorCode(clientBufferFromHostBuffer(&upload), &text),
            StatusCode::kFailedPrecondition);
  EXPECT_NE(text.find("not addressable"), std::string::npos) << text;
}

TEST(MultiProcess, ProgramsArePlacedOverBothProcesses) {
  auto [node0, node1] = twoNodes(std::make_shared<MemoryKvStore>());
  ASSERT_NE(node1, nullptr);
  RecordingLoader loader;
  // pmap over the job's four devices: XLA's default assignment, ids 0..3.
  CompileOptions pmap;
  pmap.num_replicas = 4;
  auto info = describeExecutable(doublingExecutable(1, {-1}), "p", "o");
  ASSERT_TRUE(info.isOk());
  auto loaded = loadExecutable(*node1, *info, pmap, loader.loader());
  ASSERT_TRUE(loaded.isOk()) << loaded.status().toString();
  PJRT_LoadedExecutable& e = **loaded;
  EXPECT_EQ(e.device_ids, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(e.layout.device_ids, (std::vector<int64_t>{0, 1, 2, 3}));
  ASSERT_EQ(e.addressable_devices.size(), 2u);
  EXPECT_EQ(e.addressable_devices[0], node1->devices[0]);
  EXPECT_EQ(e.addressable_devices[1], node1->devices[1]);
  EXPECT_EQ(e.logical_ids[0].replica, 2);
  EXPECT_EQ(e.logical_ids[1].replica, 3);
  EXPECT_EQ(loader.loaded.size(), 2u);  // loaded on this process's two only

  // An assignment naming only the other process's devices is refused.
  CompileOptions theirs;
  theirs.num_replicas = 2;
  theirs.device_assignment = {0, 1};
  Status refused = loadExecutable(*node1, *info, theirs, loader.loader()).status();
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.message().find("this process's"), std::string::npos)
      << refused.message();
}

TEST(MultiProcess, WithoutAKeyValueStoreCreationFailsClearly) {
  StatusOr<std::unique_ptr<PJRT_Client>> created = assembleClient(
      std::make_unique<HostPlatform>(2), nodeOptions(0, 2), compiler::Options{}, nullptr);
  ASSERT_FALSE(created.isOk());
  EXPECT_EQ(created.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(created.status().message().find("key-value store"), std::string::npos)
      << created.status().message();
  // One node needs none.
  EXPECT_TRUE(assembleClient(std::make_unique<HostPlatform>(1), nodeOptions(0, 1),
                             compiler::Options{}, nullptr)
                  .isOk());
}

TEST(DeviceExchange, DescriptionsRoundTripAndBadTextIsRefused) {
  runtime::DeviceInfo a;
  a.ordinal = 3;
  a.name = "NVIDIA H200, rev \"A\"\n";  // separators inside strings survive
  a.vendor = "NVIDIA";
  a.compute_major = 9;
  a.compute_minor = 0;
  a.core_count = 132;
  a.total_memory = 150ull << 30;
  a.pci_bus_id = "0000:3b:00.0";
  a.warp_size = 32;
  StatusOr<std::vector<runtime::DeviceInfo>> back = decodeDevices(encodeDevices({a, a}));
  ASSERT_TRUE(back.isOk()) << back.status().toString();
  ASSERT_EQ(back->size(), 2u);
  const runtime::DeviceInfo& b = (*back)[1];
  EXPECT_EQ(b.ordinal, 3);
  EXPECT_EQ(b.name, a.name);
  EXPECT_EQ(b.vendor, "NVIDIA");
  EXPECT_EQ(b.compute_major, 9);
  EXPECT_EQ(b.core_count, 132);
  EXPECT_EQ(b.total_memory, 150ull << 30);
  EXPECT_EQ(b.pci_bus_id, "0000:3b:00.0");
  EXPECT_TRUE(decodeDevices(encodeDevices({}))->empty());
  EXPECT_EQ(decodeDevices("nonsense").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(decodeDevices("jax-flagtree devices v1\n1,2,3\n").status().code(),
            StatusCode::kInvalidArgument);
}

TEST(DeviceExchange, ANodeThatNeverPublishesIsNamed) {
  MemoryKvStore store;
  runtime::DeviceInfo one;
  StatusOr<ProcessLayout> layout = exchangeDevices(store, 0, 2, {one}, milliseconds(50));
  ASSERT_FALSE(layout.isOk());
  EXPECT_EQ(layout.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_NE(layout.status().message().find("process 1 did not publish"),
            std::string::npos)
      << layout.status().message();
  EXPECT_EQ(exchangeDevices(store, 2, 2, {one}, milliseconds(1)).status().code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace jft::pjrt::testing
