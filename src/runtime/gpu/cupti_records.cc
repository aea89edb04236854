#include "runtime/gpu/cupti_records.h"

#include <cstring>

namespace jft::runtime::gpu {
namespace {

// Records sit in CUPTI's buffer at 8-byte alignment, but we copy the prefix
// out rather than cast, so a synthetic record in a test needs no alignment.
template <typename Record>
Record read(const CUpti_Activity& record) {
  Record out;
  std::memcpy(&out, &record, sizeof(out));
  return out;
}

bool untimed(uint64_t start, uint64_t end) {
  return start == 0 && end == 0;
}

}  // namespace

const char* memcpyName(uint8_t copy_kind) {
  // CUpti_ActivityMemcpyKind: 1 HTOD, 2 DTOH, 8 DTOD, 10 PTOP.
  switch (copy_kind) {
    case 1:
      return "MemcpyH2D";
    case 2:
      return "MemcpyD2H";
    case 8:
      return "MemcpyD2D";
    case 10:
      return "MemcpyP2P";
    default:
      return "MemcpyOther";
  }
}

const char* memoryKindName(uint32_t memory_kind) {
  // CUpti_ActivityMemoryKind, in order.
  static constexpr const char* kNames[] = {"unknown",       "pageable",      "pinned",
                                           "device",        "array",         "managed",
                                           "device_static", "managed_static"};
  return memory_kind < std::size(kNames) ? kNames[memory_kind] : "unknown";
}

void addCuptiRecord(const CUpti_Activity& record, CuptiRecords& out) {
  DeviceActivity activity;
  switch (record.kind) {
    case kCuptiActivityKindConcurrentKernel: {
      const auto kernel = read<CUpti_ActivityKernel9>(record);
      if (untimed(kernel.start, kernel.end)) break;
      activity.kind = ActivityKind::kKernel;
      activity.name = kernel.name != nullptr ? kernel.name : "kernel";
      activity.device = static_cast<int>(kernel.deviceId);
      activity.stream = kernel.streamId;
      activity.start_ns = kernel.start;
      activity.end_ns = kernel.end;
      activity.correlation_id = kernel.correlationId;
      // XLA's kernel_details text; we leave the occupancy to the tools.
      activity.details =
          "regs:" + std::to_string(kernel.registersPerThread) +
          " static_shared:" + std::to_string(kernel.staticSharedMemory) +
          " dynamic_shared:" + std::to_string(kernel.dynamicSharedMemory) +
          " grid:" + std::to_string(kernel.gridX) + "," + std::to_string(kernel.gridY) +
          "," + std::to_string(kernel.gridZ) + " block:" + std::to_string(kernel.blockX) +
          "," + std::to_string(kernel.blockY) + "," + std::to_string(kernel.blockZ);
      out.activities.push_back(std::move(activity));
      return;
    }
    case kCuptiActivityKindMemcpy: {
      const auto copy = read<CUpti_ActivityMemcpy5>(record);
      if (untimed(copy.start, copy.end)) break;
      activity.kind = ActivityKind::kMemcpy;
      activity.name = memcpyName(copy.copyKind);
      activity.device = static_cast<int>(copy.deviceId);
      activity.stream = copy.streamId;
      activity.start_ns = copy.start;
      activity.end_ns = copy.end;
      activity.correlation_id = copy.correlationId;
      activity.details = std::string("kind_src:") + memoryKindName(copy.srcKind) +
                         " kind_dst:" + memoryKindName(copy.dstKind) +
                         " size:" + std::to_string(copy.bytes) +
                         " dest:" + std::to_string(copy.deviceId) +
                         " async:" + ((copy.flags & kCuptiActivityFlagAsync) ? "1" : "0");
      out.activities.push_back(std::move(activity));
      return;
    }
    case kCuptiActivityKindMemset: {
      const auto fill = read<CUpti_ActivityMemset4>(record);
      if (untimed(fill.start, fill.end)) break;
      activity.kind = ActivityKind::kMemset;
      activity.name = "Memset";
      activity.device = static_cast<int>(fill.deviceId);
      activity.stream = fill.streamId;
      activity.start_ns = fill.start;
      activity.end_ns = fill.end;
      activity.correlation_id = fill.correlationId;
      activity.details = std::string("kind:") + memoryKindName(fill.memoryKind) +
                         " num_bytes:" + std::to_string(fill.bytes) +
                         " async:" + ((fill.flags & kCuptiActivityFlagAsync) ? "1" : "0");
      out.activities.push_back(std::move(activity));
      return;
    }
    case kCuptiActivityKindExternalCorrelation: {
      const auto link = read<CUpti_ActivityExternalCorrelation>(record);
      if (link.externalKind == kCuptiExternalCorrelationCustom1)
        out.external_ids[link.correlationId] = link.externalId;
      return;
    }
    default:
      break;
  }
  ++out.ignored;
}

}  // namespace jft::runtime::gpu
