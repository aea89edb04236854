#include "xplane_reader.h"

#include <gtest/gtest.h>

namespace jft::testing {
namespace {

using proto::Field;
using proto::Reader;

// Calls `each(field)` for every field of `bytes`; false on malformed input.
template <typename Each>
bool forEachField(std::string_view bytes, Each&& each) {
  Reader reader(bytes);
  while (!reader.done()) {
    auto field = reader.next();
    if (!field.isOk()) {
      ADD_FAILURE() << field.status().message();
      return false;
    }
    each(*field);
  }
  return true;
}

XStatRead readStat(std::string_view bytes) {
  XStatRead stat;
  forEachField(bytes, [&](const Field& f) {
    if (f.number == 1) stat.metadata_id = static_cast<int64_t>(f.varint);
    if (f.number == 3 || f.number == 4) stat.uint_value = f.varint;
    if (f.number == 5) stat.str_value = std::string(f.bytes);
  });
  return stat;
}

XEventRead readEvent(std::string_view bytes) {
  XEventRead event;
  forEachField(bytes, [&](const Field& f) {
    if (f.number == 1) event.metadata_id = static_cast<int64_t>(f.varint);
    if (f.number == 2) event.offset_ps = static_cast<int64_t>(f.varint);
    if (f.number == 3) event.duration_ps = static_cast<int64_t>(f.varint);
    if (f.number == 4) event.stats.push_back(readStat(f.bytes));
  });
  return event;
}

XLineRead readLine(std::string_view bytes) {
  XLineRead line;
  forEachField(bytes, [&](const Field& f) {
    if (f.number == 1) line.id = static_cast<int64_t>(f.varint);
    if (f.number == 2) line.name = std::string(f.bytes);
    if (f.number == 3) line.timestamp_ns = static_cast<int64_t>(f.varint);
    if (f.number == 4) line.events.push_back(readEvent(f.bytes));
  });
  return line;
}

// A map<int64, XEventMetadata/XStatMetadata> entry: key, then {id, name}.
void readMetadataEntry(std::string_view bytes, std::map<int64_t, std::string>& into) {
  int64_t key = 0, id = 0;
  std::string name;
  forEachField(bytes, [&](const Field& f) {
    if (f.number == 1) key = static_cast<int64_t>(f.varint);
    if (f.number == 2)
      forEachField(f.bytes, [&](const Field& m) {
        if (m.number == 1) id = static_cast<int64_t>(m.varint);
        if (m.number == 2) name = std::string(m.bytes);
      });
  });
  EXPECT_EQ(key, id) << "a metadata map entry's key must be its value's id";
  into[key] = name;
}

XPlaneRead readPlane(std::string_view bytes) {
  XPlaneRead plane;
  forEachField(bytes, [&](const Field& f) {
    if (f.number == 1) plane.id = static_cast<int64_t>(f.varint);
    if (f.number == 2) plane.name = std::string(f.bytes);
    if (f.number == 3) plane.lines.push_back(readLine(f.bytes));
    if (f.number == 4) readMetadataEntry(f.bytes, plane.event_names);
    if (f.number == 5) readMetadataEntry(f.bytes, plane.stat_names);
    if (f.number == 6) plane.stats.push_back(readStat(f.bytes));
  });
  return plane;
}

}  // namespace

std::string XPlaneRead::stat(const XEventRead& event, const std::string& name) const {
  for (const XStatRead& s : event.stats) {
    auto found = stat_names.find(s.metadata_id);
    if (found != stat_names.end() && found->second == name)
      return s.str_value.empty() ? std::to_string(s.uint_value) : s.str_value;
  }
  return "";
}

XSpaceRead readXSpace(std::string_view bytes) {
  XSpaceRead space;
  forEachField(bytes, [&](const Field& f) {
    if (f.number == 1) space.planes.push_back(readPlane(f.bytes));
    if (f.number == 3) space.warnings.emplace_back(f.bytes);
    if (f.number == 4) space.hostnames.emplace_back(f.bytes);
  });
  return space;
}

}  // namespace jft::testing
