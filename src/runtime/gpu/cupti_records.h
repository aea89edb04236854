// CUPTI activity records as DeviceActivity entries (runtime/device_trace.h):
// kernels with their launch shape, copies with their direction and size,
// fills; external correlation records remembered so each activity can be
// tied to the run and step that enqueued it. Pure conversion, testable on
// synthetic records without a GPU.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/device_trace.h"
#include "runtime/gpu/cupti_api.h"

namespace jft::runtime::gpu {

struct CuptiRecords {
  // Timestamps still in CUPTI's clock; device = CUPTI's device id (the CUDA
  // ordinal), stream = CUPTI's stream id.
  std::vector<DeviceActivity> activities;
  // correlationId -> the external id pushed around its enqueue.
  std::unordered_map<uint32_t, uint64_t> external_ids;
  uint64_t ignored = 0;  // records of kinds we do not convert
};

// Reads one record, after checking its kind. Records with start and end both
// 0 (CUPTI could not time them) are counted as ignored.
void addCuptiRecord(const CUpti_Activity& record, CuptiRecords& out);

// XLA's names for a copy's direction ("MemcpyH2D", "MemcpyD2H", "MemcpyD2D",
// "MemcpyP2P", else "MemcpyOther") and for a memory kind ("pageable",
// "pinned", "device", ...).
const char* memcpyName(uint8_t copy_kind);
const char* memoryKindName(uint32_t memory_kind);

}  // namespace jft::runtime::gpu
