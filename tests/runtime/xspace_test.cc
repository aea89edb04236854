// runtime/xspace.h: a DeviceTrace encoded and decoded back (tests'
// xplane_reader.h) holds XLA's plane, line, event and stat names, offsets
// and durations in picoseconds from the trace start, metadata ids that
// resolve, and the derived module and op lines.
#include "runtime/xspace.h"

#include <gtest/gtest.h>

#include <set>

#include "xplane_reader.h"

namespace jft::runtime {
namespace {

using jft::testing::readXSpace;
using jft::testing::XLineRead;
using jft::testing::XPlaneRead;

constexpr uint64_t kStart = 1'700'000'000'000'000'000ull;

DeviceActivity activity(ActivityKind kind, std::string name, int device, uint32_t stream,
                        uint64_t start, uint64_t end) {
  DeviceActivity a;
  a.kind = kind;
  a.name = std::move(name);
  a.device = device;
  a.stream = stream;
  a.start_ns = kStart + start;
  a.end_ns = kStart + end;
  return a;
}

DeviceTrace sampleTrace() {
  DeviceTrace trace;
  trace.start_ns = kStart;
  trace.end_ns = kStart + 10'000;
  trace.devices = {0};
  DeviceActivity gemm = activity(ActivityKind::kKernel, "sm90_xmma_gemm", 0, 7, 300, 900);
  gemm.correlation_id = 42;
  gemm.details = "regs:128 static_shared:0 dynamic_shared:0 grid:4,1,1 block:128,1,1";
  gemm.module = "jit_f";
  gemm.run = 3;
  gemm.op = "gemm f32";
  trace.activities.push_back(gemm);
  DeviceActivity fusion = activity(ActivityKind::kKernel, "fusion_add", 0, 7, 100, 200);
  fusion.module = "jit_f";
  fusion.run = 3;
  fusion.op = "fusion_add";
  trace.activities.push_back(fusion);
  DeviceActivity copy = activity(ActivityKind::kMemcpy, "MemcpyH2D", 0, 8, 50, 80);
  copy.details = "kind_src:pinned kind_dst:device size:64 dest:0 async:1";
  trace.activities.push_back(copy);
  trace.activities.push_back(
      activity(ActivityKind::kKernel, "fusion_add", 1, 2, 400, 500));
  // Before the window: left out, counted.
  DeviceActivity early = activity(ActivityKind::kKernel, "early", 0, 7, 0, 10);
  early.start_ns = kStart - 5;
  trace.activities.push_back(early);
  trace.warnings = {"note"};
  return trace;
}

const XLineRead* findLine(const XPlaneRead& plane, const std::string& name) {
  for (const XLineRead& line : plane.lines)
    if (line.name == name) return &line;
  return nullptr;
}

TEST(XSpace, PlanesPerDeviceNamedAsXlaNamesThem) {
  auto space = readXSpace(encodeXSpace(sampleTrace(), "host-a"));
  ASSERT_EQ(space.planes.size(), 2u);
  EXPECT_EQ(space.planes[0].name, "/device:GPU:0");
  EXPECT_EQ(space.planes[0].id, 0);
  EXPECT_EQ(space.planes[1].name, "/device:GPU:1");
  EXPECT_EQ(space.planes[1].id, 1);
  EXPECT_EQ(gpuPlaneName(3), "/device:GPU:3");
  ASSERT_EQ(space.hostnames.size(), 1u);
  EXPECT_EQ(space.hostnames[0], "host-a");
  ASSERT_EQ(space.warnings.size(), 2u);
  EXPECT_EQ(space.warnings[0], "note");
  EXPECT_NE(space.warnings[1].find("1 GPU activities fell outside"), std::string::npos);
  const XPlaneRead& plane = space.planes[0];
  ASSERT_EQ(plane.stats.size(), 1u);
  EXPECT_EQ(plane.stat_names.at(plane.stats[0].metadata_id), "device_vendor");
  EXPECT_EQ(plane.stats[0].str_value, "Nvidia");
}

TEST(XSpace, StreamLinesHoldEventsInPicosecondsFromTheStart) {
  auto space = readXSpace(encodeXSpace(sampleTrace(), "h"));
  const XPlaneRead& plane = space.planes[0];
  const XLineRead* stream = findLine(plane, "Stream #7");
  ASSERT_NE(stream, nullptr);
  EXPECT_EQ(stream->id, 7);
  EXPECT_EQ(stream->timestamp_ns, static_cast<int64_t>(kStart));
  ASSERT_EQ(stream->events.size(), 2u);  // "early" left out
  // Sorted by start: the fusion first.
  EXPECT_EQ(plane.event_names.at(stream->events[0].metadata_id), "fusion_add");
  EXPECT_EQ(stream->events[0].offset_ps, 100'000);
  EXPECT_EQ(stream->events[0].duration_ps, 100'000);
  const auto& gemm = stream->events[1];
  EXPECT_EQ(plane.event_names.at(gemm.metadata_id), "sm90_xmma_gemm");
  EXPECT_EQ(gemm.offset_ps, 300'000);
  EXPECT_EQ(gemm.duration_ps, 600'000);
  EXPECT_EQ(plane.stat(gemm, "correlation_id"), "42");
  EXPECT_EQ(plane.stat(gemm, "kernel_details"),
            "regs:128 static_shared:0 dynamic_shared:0 grid:4,1,1 block:128,1,1");
  EXPECT_EQ(plane.stat(gemm, "hlo_module"), "jit_f");
  EXPECT_EQ(plane.stat(gemm, "hlo_op"), "gemm f32");
  const XLineRead* copies = findLine(plane, "Stream #8");
  ASSERT_NE(copies, nullptr);
  ASSERT_EQ(copies->events.size(), 1u);
  EXPECT_EQ(plane.event_names.at(copies->events[0].metadata_id), "MemcpyH2D");
  EXPECT_EQ(plane.stat(copies->events[0], "memcpy_details"),
            "kind_src:pinned kind_dst:device size:64 dest:0 async:1");
  EXPECT_EQ(plane.stat(copies->events[0], "hlo_module"), "");  // not from a run
}

TEST(XSpace, DerivedLinesSpanEachRunAndStep) {
  auto space = readXSpace(encodeXSpace(sampleTrace(), "h"));
  const XPlaneRead& plane = space.planes[0];
  const XLineRead* modules = findLine(plane, "XLA Modules");
  ASSERT_NE(modules, nullptr);
  ASSERT_EQ(modules->events.size(), 1u);
  EXPECT_EQ(plane.event_names.at(modules->events[0].metadata_id), "jit_f");
  EXPECT_EQ(modules->events[0].offset_ps, 100'000);    // first kernel's start
  EXPECT_EQ(modules->events[0].duration_ps, 800'000);  // to the gemm's end
  EXPECT_EQ(plane.stat(modules->events[0], "run_id"), "3");
  const XLineRead* ops = findLine(plane, "XLA Ops");
  ASSERT_NE(ops, nullptr);
  ASSERT_EQ(ops->events.size(), 2u);
  EXPECT_EQ(plane.event_names.at(ops->events[0].metadata_id), "fusion_add");
  EXPECT_EQ(plane.event_names.at(ops->events[1].metadata_id), "gemm f32");
}

TEST(XSpace, MetadataIdsAreUniqueAndResolve) {
  auto space = readXSpace(encodeXSpace(sampleTrace(), "h"));
  for (const XPlaneRead& plane : space.planes) {
    std::set<std::string> names;
    for (const auto& [id, name] : plane.event_names) {
      EXPECT_GT(id, 0);
      EXPECT_TRUE(names.insert(name).second) << "two ids for " << name;
    }
    for (const XLineRead& line : plane.lines)
      for (const auto& event : line.events) {
        EXPECT_TRUE(plane.event_names.count(event.metadata_id)) << line.name;
        for (const auto& stat : event.stats)
          EXPECT_TRUE(plane.stat_names.count(stat.metadata_id)) << line.name;
      }
  }
}

TEST(XSpace, EmptyTraceStillNamesItsDevicesAndHost) {
  DeviceTrace trace;
  trace.start_ns = kStart;
  trace.devices = {0};
  auto space = readXSpace(encodeXSpace(trace, "h"));
  ASSERT_EQ(space.planes.size(), 1u);
  EXPECT_TRUE(space.planes[0].lines.empty());
  EXPECT_TRUE(readXSpace(encodeXSpace(DeviceTrace{}, "")).planes.empty());
}

}  // namespace
}  // namespace jft::runtime
