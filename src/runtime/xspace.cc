#include "runtime/xspace.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "support/proto_wire.h"

namespace jft::runtime {
namespace {

// Field numbers of tensorflow.profiler's xplane.proto.
namespace xspace {
constexpr int kPlanes = 1, kWarnings = 3, kHostnames = 4;
}
namespace xplane {
constexpr int kId = 1, kName = 2, kLines = 3, kEventMetadata = 4, kStatMetadata = 5,
              kStats = 6;
}
namespace xline {
constexpr int kId = 1, kName = 2, kTimestampNs = 3, kEvents = 4, kDurationPs = 9,
              kDisplayId = 10;
}
namespace xevent {
constexpr int kMetadataId = 1, kOffsetPs = 2, kDurationPs = 3, kStats = 4;
}
namespace xstat {
constexpr int kMetadataId = 1, kUint64 = 3, kInt64 = 4, kStr = 5;
}
namespace metadata {  // XEventMetadata and XStatMetadata share id and name
constexpr int kId = 1, kName = 2;
}
namespace map_entry {  // protobuf map<int64, Message> entries
constexpr int kKey = 1, kValue = 2;
}

// Line ids of the derived lines, as XLA numbers them (trace_utils.h:
// kThreadIdDerivedMin = 0xdeadbeef, then step info, kernel launch, name
// scope, framework op, HLO module, HLO op) so the tools treat ours alike.
constexpr int64_t kModulesLineId = 0xdeadbeefLL + 4;
constexpr int64_t kOpsLineId = 0xdeadbeefLL + 5;

// Interns names into the plane's metadata maps (ids from 1, 0 means none).
class NameTable {
 public:
  int64_t id(const std::string& name) {
    auto [it, inserted] = ids_.try_emplace(name, static_cast<int64_t>(ids_.size()) + 1);
    return it->second;
  }
  void write(proto::Writer& plane, int field) const {
    for (const auto& [name, id] : ids_) {
      proto::Writer value;
      value.int64Field(metadata::kId, id);
      value.bytesField(metadata::kName, name);
      proto::Writer entry;
      entry.int64Field(map_entry::kKey, id);
      entry.messageField(map_entry::kValue, value);
      plane.messageField(field, entry);
    }
  }

 private:
  std::map<std::string, int64_t> ids_;
};

struct Span {
  uint64_t start_ns, end_ns;
  std::string name;
  std::vector<std::pair<std::string, std::string>> stats;  // string stats
};

class PlaneWriter {
 public:
  proto::Writer& plane() { return plane_; }

  void stringStat(proto::Writer& owner, int field, const std::string& name,
                  const std::string& value) {
    proto::Writer stat;
    stat.int64Field(xstat::kMetadataId, stats_.id(name));
    stat.bytesField(xstat::kStr, value);
    owner.messageField(field, stat);
  }
  void uintStat(proto::Writer& owner, int field, const std::string& name,
                uint64_t value) {
    proto::Writer stat;
    stat.int64Field(xstat::kMetadataId, stats_.id(name));
    stat.varintField(xstat::kUint64, value);
    owner.messageField(field, stat);
  }

  // Events must be sorted by start; the line begins at `origin_ns`.
  void line(int64_t id, const std::string& name, uint64_t origin_ns, uint64_t duration_ns,
            const std::vector<Span>& spans,
            const std::vector<const DeviceActivity*>* activities) {
    proto::Writer line;
    line.int64Field(xline::kId, id);
    line.int64Field(xline::kDisplayId, id);
    line.bytesField(xline::kName, name);
    line.int64Field(xline::kTimestampNs, static_cast<int64_t>(origin_ns));
    line.int64Field(xline::kDurationPs, static_cast<int64_t>(duration_ns * 1000));
    for (size_t i = 0; i < spans.size(); ++i) {
      const Span& span = spans[i];
      proto::Writer event;
      event.int64Field(xevent::kMetadataId, events_.id(span.name));
      event.int64Field(xevent::kOffsetPs,
                       static_cast<int64_t>((span.start_ns - origin_ns) * 1000));
      event.int64Field(xevent::kDurationPs,
                       static_cast<int64_t>((span.end_ns - span.start_ns) * 1000));
      if (activities != nullptr && (*activities)[i]->correlation_id != 0)
        uintStat(event, xevent::kStats, "correlation_id",
                 (*activities)[i]->correlation_id);
      for (const auto& [stat, value] : span.stats)
        if (!value.empty()) stringStat(event, xevent::kStats, stat, value);
      line.messageField(xline::kEvents, event);
    }
    plane_.messageField(xplane::kLines, line);
  }

  void finish() {
    events_.write(plane_, xplane::kEventMetadata);
    stats_.write(plane_, xplane::kStatMetadata);
  }

 private:
  proto::Writer plane_;
  NameTable events_;
  NameTable stats_;
};

const char* detailsStatName(ActivityKind kind) {
  switch (kind) {
    case ActivityKind::kKernel:
      return "kernel_details";
    case ActivityKind::kMemcpy:
      return "memcpy_details";
    case ActivityKind::kMemset:
      return "Memset_details";
  }
  return "details";
}

// One span per run (modules) or per run and step (ops), from the first of its
// activities to start to the last to end.
std::vector<Span> derivedSpans(const std::vector<const DeviceActivity*>& activities,
                               bool per_step) {
  std::map<std::pair<uint64_t, std::string>, Span> spans;
  for (const DeviceActivity* a : activities) {
    if (a->run == 0) continue;
    const std::string key_op = per_step ? a->op : std::string();
    auto [it, inserted] = spans.try_emplace(
        {a->run, key_op}, Span{a->start_ns, a->end_ns, per_step ? a->op : a->module, {}});
    Span& span = it->second;
    if (inserted) {
      span.stats.emplace_back("hlo_module", a->module);
      span.stats.emplace_back("run_id", std::to_string(a->run));
    }
    span.start_ns = std::min(span.start_ns, a->start_ns);
    span.end_ns = std::max(span.end_ns, a->end_ns);
  }
  std::vector<Span> sorted;
  for (auto& [key, span] : spans)
    if (!span.name.empty()) sorted.push_back(std::move(span));
  std::sort(sorted.begin(), sorted.end(),
            [](const Span& a, const Span& b) { return a.start_ns < b.start_ns; });
  return sorted;
}

std::string encodePlane(int ordinal, const DeviceTrace& trace,
                        const std::vector<const DeviceActivity*>& activities) {
  PlaneWriter writer;
  writer.plane().int64Field(xplane::kId, ordinal);
  writer.plane().bytesField(xplane::kName, gpuPlaneName(ordinal));
  writer.stringStat(writer.plane(), xplane::kStats, "device_vendor", "Nvidia");
  const uint64_t origin = trace.start_ns;
  const uint64_t duration = trace.end_ns > origin ? trace.end_ns - origin : 0;

  std::map<uint32_t, std::vector<const DeviceActivity*>> streams;
  for (const DeviceActivity* a : activities) streams[a->stream].push_back(a);
  for (auto& [stream, on_stream] : streams) {
    std::stable_sort(on_stream.begin(), on_stream.end(),
                     [](const DeviceActivity* a, const DeviceActivity* b) {
                       return a->start_ns < b->start_ns;
                     });
    std::vector<Span> spans;
    for (const DeviceActivity* a : on_stream)
      spans.push_back(Span{a->start_ns,
                           a->end_ns,
                           a->name,
                           {{detailsStatName(a->kind), a->details},
                            {"hlo_module", a->module},
                            {"hlo_op", a->op}}});
    writer.line(stream, "Stream #" + std::to_string(stream), origin, duration, spans,
                &on_stream);
  }
  const std::vector<Span> modules = derivedSpans(activities, false);
  if (!modules.empty())
    writer.line(kModulesLineId, "XLA Modules", origin, duration, modules, nullptr);
  const std::vector<Span> ops = derivedSpans(activities, true);
  if (!ops.empty()) writer.line(kOpsLineId, "XLA Ops", origin, duration, ops, nullptr);
  writer.finish();
  return writer.plane().take();
}

}  // namespace

std::string gpuPlaneName(int ordinal) {
  return "/device:GPU:" + std::to_string(ordinal);
}

std::string encodeXSpace(const DeviceTrace& trace, std::string_view hostname) {
  std::map<int, std::vector<const DeviceActivity*>> devices;
  for (int ordinal : trace.devices) devices[ordinal];
  size_t outside = 0;
  for (const DeviceActivity& a : trace.activities) {
    if (a.end_ns < a.start_ns || a.start_ns < trace.start_ns ||
        (trace.end_ns != 0 && a.end_ns > trace.end_ns) || a.device < 0) {
      ++outside;
      continue;
    }
    devices[a.device].push_back(&a);
  }
  proto::Writer space;
  for (const auto& [ordinal, activities] : devices) {
    space.bytesField(xspace::kPlanes, encodePlane(ordinal, trace, activities));
  }
  for (const std::string& warning : trace.warnings)
    space.bytesField(xspace::kWarnings, warning);
  if (outside > 0)
    space.bytesField(
        xspace::kWarnings,
        std::to_string(outside) +
            " GPU activities fell outside the trace window and were left out");
  space.bytesField(xspace::kHostnames, hostname);
  return space.take();
}

}  // namespace jft::runtime
