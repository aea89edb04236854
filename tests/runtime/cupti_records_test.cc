// runtime/gpu/cupti_records.h on synthetic CUPTI records laid out as
// cupti_activity.h states them (the prefix we read sits inside a record as
// long as the real one): kernels, copies, fills and external correlations
// become activities with XLA's names and detail texts; untimed records and
// other kinds are counted, not converted. Also the CUPTI-to-host clock offset.
#include "runtime/gpu/cupti_records.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "runtime/gpu/cupti_tracer.h"

namespace jft::runtime::gpu {
namespace {

// A record buffer as large as CUpti_ActivityKernel10, holding `prefix`.
template <typename Prefix>
const CUpti_Activity& asRecord(const Prefix& prefix, unsigned char (&buffer)[256]) {
  std::memset(buffer, 0, sizeof(buffer));
  std::memcpy(buffer, &prefix, sizeof(prefix));
  return *reinterpret_cast<const CUpti_Activity*>(buffer);
}

TEST(CuptiRecords, KernelBecomesAnActivityWithXlasKernelDetails) {
  CUpti_ActivityKernel9 k{};
  k.kind = kCuptiActivityKindConcurrentKernel;
  k.registersPerThread = 40;
  k.start = 1000;
  k.end = 1500;
  k.deviceId = 1;
  k.streamId = 13;
  k.gridX = 64, k.gridY = 2, k.gridZ = 1;
  k.blockX = 128, k.blockY = 1, k.blockZ = 1;
  k.staticSharedMemory = 0;
  k.dynamicSharedMemory = 49152;
  k.correlationId = 77;
  k.name = "fusion_multiply_add";
  alignas(8) unsigned char buffer[256];
  CuptiRecords records;
  addCuptiRecord(asRecord(k, buffer), records);
  ASSERT_EQ(records.activities.size(), 1u);
  const DeviceActivity& a = records.activities[0];
  EXPECT_EQ(a.kind, ActivityKind::kKernel);
  EXPECT_EQ(a.name, "fusion_multiply_add");
  EXPECT_EQ(a.device, 1);
  EXPECT_EQ(a.stream, 13u);
  EXPECT_EQ(a.start_ns, 1000u);
  EXPECT_EQ(a.end_ns, 1500u);
  EXPECT_EQ(a.correlation_id, 77u);
  EXPECT_EQ(a.details,
            "regs:40 static_shared:0 dynamic_shared:49152 grid:64,2,1 block:128,1,1");
}

TEST(CuptiRecords, CopiesAndFillsNameTheirDirectionAndMemory) {
  CUpti_ActivityMemcpy5 c{};
  c.kind = kCuptiActivityKindMemcpy;
  c.copyKind = 1;  // HTOD
  c.srcKind = 2;   // pinned
  c.dstKind = 3;   // device
  c.flags = kCuptiActivityFlagAsync;
  c.bytes = 4096;
  c.start = 10;
  c.end = 20;
  c.streamId = 5;
  c.correlationId = 8;
  CUpti_ActivityMemset4 m{};
  m.kind = kCuptiActivityKindMemset;
  m.bytes = 256;
  m.start = 30;
  m.end = 31;
  m.memoryKind = 3;
  alignas(8) unsigned char buffer[256];
  CuptiRecords records;
  addCuptiRecord(asRecord(c, buffer), records);
  addCuptiRecord(asRecord(m, buffer), records);
  ASSERT_EQ(records.activities.size(), 2u);
  EXPECT_EQ(records.activities[0].kind, ActivityKind::kMemcpy);
  EXPECT_EQ(records.activities[0].name, "MemcpyH2D");
  EXPECT_EQ(records.activities[0].details,
            "kind_src:pinned kind_dst:device size:4096 dest:0 async:1");
  EXPECT_EQ(records.activities[0].correlation_id, 8u);
  EXPECT_EQ(records.activities[1].kind, ActivityKind::kMemset);
  EXPECT_EQ(records.activities[1].name, "Memset");
  EXPECT_EQ(records.activities[1].details, "kind:device num_bytes:256 async:0");
  EXPECT_STREQ(memcpyName(2), "MemcpyD2H");
  EXPECT_STREQ(memcpyName(8), "MemcpyD2D");
  EXPECT_STREQ(memcpyName(10), "MemcpyP2P");
  EXPECT_STREQ(memcpyName(9), "MemcpyOther");
  EXPECT_STREQ(memoryKindName(1), "pageable");
  EXPECT_STREQ(memoryKindName(200), "unknown");
}

TEST(CuptiRecords, ExternalCorrelationsAreRememberedForOurKindOnly) {
  CUpti_ActivityExternalCorrelation link{};
  link.kind = kCuptiActivityKindExternalCorrelation;
  link.externalKind = kCuptiExternalCorrelationCustom1;
  link.externalId = (uint64_t{5} << 20) | 2;
  link.correlationId = 77;
  CUpti_ActivityExternalCorrelation other = link;
  other.externalKind = kCuptiExternalCorrelationCustom1 - 1;  // someone else's
  other.correlationId = 78;
  alignas(8) unsigned char buffer[256];
  CuptiRecords records;
  addCuptiRecord(asRecord(link, buffer), records);
  addCuptiRecord(asRecord(other, buffer), records);
  EXPECT_TRUE(records.activities.empty());
  ASSERT_EQ(records.external_ids.size(), 1u);
  EXPECT_EQ(records.external_ids.at(77), link.externalId);
}

TEST(CuptiRecords, UntimedAndUnknownRecordsAreCountedNotConverted) {
  CUpti_ActivityKernel9 untimed{};
  untimed.kind = kCuptiActivityKindConcurrentKernel;
  untimed.name = "k";
  CUpti_Activity unknown{17};  // OVERHEAD: not enabled by us
  alignas(8) unsigned char buffer[256];
  CuptiRecords records;
  addCuptiRecord(asRecord(untimed, buffer), records);
  addCuptiRecord(asRecord(unknown, buffer), records);
  EXPECT_TRUE(records.activities.empty());
  EXPECT_EQ(records.ignored, 2u);
}

// CUPTI writes an external correlation record only beside an API record, so a
// trace that wants runs and steps (the "XLA Modules" line) must enable the
// driver API's records too: without them no kernel carried its run.
TEST(CuptiTracer, ExternalCorrelationsComeWithDriverApiRecords) {
  const auto kinds = cuptiActivityKinds();
  auto has = [&](CUpti_ActivityKind kind) {
    return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
  };
  EXPECT_TRUE(has(kCuptiActivityKindConcurrentKernel));
  ASSERT_TRUE(has(kCuptiActivityKindExternalCorrelation));
  EXPECT_TRUE(has(kCuptiActivityKindDriver));
}

TEST(CuptiRecords, DriverApiRecordsAreNotActivities) {
  CUpti_Activity api{kCuptiActivityKindDriver};
  alignas(8) unsigned char buffer[256];
  CuptiRecords records;
  addCuptiRecord(asRecord(api, buffer), records);
  EXPECT_TRUE(records.activities.empty());
  EXPECT_TRUE(records.external_ids.empty());
}

TEST(CuptiClock, OffsetTakesTheMidpointOfTheHostReadings) {
  EXPECT_EQ(cuptiToHostOffset(1'000'100, 500, 1'000'300), 1'000'200 - 500);
  EXPECT_EQ(cuptiToHostOffset(100, 1000, 100), -900);
}

}  // namespace
}  // namespace jft::runtime::gpu
