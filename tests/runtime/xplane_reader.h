// A small XSpace decoder for tests, over support/proto_wire.h: enough of
// xplane.proto to assert what the profiler writes (planes, lines, events,
// stats, metadata ids) without a protobuf library.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "support/proto_wire.h"

namespace jft::testing {

struct XStatRead {
  int64_t metadata_id = 0;
  uint64_t uint_value = 0;
  std::string str_value;
};

struct XEventRead {
  int64_t metadata_id = 0;
  int64_t offset_ps = 0;
  int64_t duration_ps = 0;
  std::vector<XStatRead> stats;
};

struct XLineRead {
  int64_t id = 0;
  std::string name;
  int64_t timestamp_ns = 0;
  std::vector<XEventRead> events;
};

struct XPlaneRead {
  int64_t id = 0;
  std::string name;
  std::vector<XLineRead> lines;
  std::map<int64_t, std::string> event_names;  // event_metadata id -> name
  std::map<int64_t, std::string> stat_names;   // stat_metadata id -> name
  std::vector<XStatRead> stats;
  // The value of the event's stat named `name` ("" when absent).
  std::string stat(const XEventRead& event, const std::string& name) const;
};

struct XSpaceRead {
  std::vector<XPlaneRead> planes;
  std::vector<std::string> warnings;
  std::vector<std::string> hostnames;
};

// Fails the current test (and returns what was read) on malformed bytes.
XSpaceRead readXSpace(std::string_view bytes);

}  // namespace jft::testing
