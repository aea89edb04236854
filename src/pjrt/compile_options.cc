// CompileOptionsProto reading: a protobuf wire-format walker over the few
// fields we use (tag = field << 3 | wire type).
#include "pjrt/compile_options.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>

namespace jft::pjrt {
namespace {

enum WireType : int { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

class WireReader {
 public:
  WireReader(std::string_view bytes, std::string what)
      : bytes_(bytes), what_(std::move(what)) {}

  bool done() const { return pos_ >= bytes_.size(); }

  StatusOr<uint64_t> varint() {
    uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= bytes_.size()) return malformed("a varint runs past the end");
      uint8_t byte = static_cast<uint8_t>(bytes_[pos_++]);
      value |= static_cast<uint64_t>(byte & 0x7F) << shift;
      if ((byte & 0x80) == 0) return value;
    }
    return malformed("a varint is longer than ten bytes");
  }

  // Sets field and wire type of the next entry.
  Status tag(int& field, int& wireType) {
    JFT_ASSIGN_OR_RETURN(uint64_t key, varint());
    field =
        static_cast<int>(std::min<uint64_t>(key >> 3, std::numeric_limits<int>::max()));
    wireType = static_cast<int>(key & 7);
    if (field == 0) return malformed("field number 0");
    return Status::ok();
  }

  StatusOr<std::string_view> lengthDelimited() {
    JFT_ASSIGN_OR_RETURN(uint64_t length, varint());
    if (length > bytes_.size() - pos_) return malformed("a length runs past the end");
    std::string_view out = bytes_.substr(pos_, length);
    pos_ += length;
    return out;
  }

  Status skip(int wireType) {
    switch (wireType) {
      case kVarint:
        return varint().status().isOk() ? Status::ok() : malformed("bad varint");
      case kFixed64:
        return advance(8);
      case kFixed32:
        return advance(4);
      case kLengthDelimited:
        return lengthDelimited().isOk() ? Status::ok() : malformed("bad length");
      default:
        return malformed("unsupported wire type " + std::to_string(wireType));
    }
  }

  Status expect(int wireType, int expected, const char* field) {
    if (wireType == expected) return Status::ok();
    return malformed(std::string(field) + " has wire type " + std::to_string(wireType));
  }

  Status malformed(const std::string& why) const {
    return invalidArgument("malformed " + what_ + ": " + why + " (at byte " +
                           std::to_string(pos_) + ")");
  }

 private:
  Status advance(size_t count) {
    if (count > bytes_.size() - pos_)
      return malformed("a fixed-width value runs past the end");
    pos_ += count;
    return Status::ok();
  }

  std::string_view bytes_;
  std::string what_;
  size_t pos_ = 0;
};

// Protobuf int32/int64 fields arrive as the two's complement varint.
StatusOr<int64_t> intValue(WireReader& reader, int64_t low, int64_t high,
                           const char* field) {
  JFT_ASSIGN_OR_RETURN(uint64_t raw, reader.varint());
  int64_t value = static_cast<int64_t>(raw);
  if (value < low || value > high)
    return reader.malformed(std::string(field) + " = " + std::to_string(value) +
                            " is out of range");
  return value;
}

constexpr int64_t kIntMax = std::numeric_limits<int>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

Status readReplicaIds(std::string_view bytes, std::vector<int64_t>& ids) {
  WireReader reader(bytes, "DeviceAssignmentProto.ComputationDevice");
  while (!reader.done()) {
    int field = 0, wireType = 0;
    JFT_RETURN_IF_ERROR(reader.tag(field, wireType));
    if (field != 1) {
      JFT_RETURN_IF_ERROR(reader.skip(wireType));
    } else if (wireType == kVarint) {
      JFT_ASSIGN_OR_RETURN(int64_t id,
                           intValue(reader, kInt64Min, kInt64Max, "device id"));
      ids.push_back(id);
    } else {
      JFT_RETURN_IF_ERROR(
          reader.expect(wireType, kLengthDelimited, "replica_device_ids"));
      JFT_ASSIGN_OR_RETURN(std::string_view packed, reader.lengthDelimited());
      WireReader values(packed, "packed replica_device_ids");
      while (!values.done()) {
        JFT_ASSIGN_OR_RETURN(int64_t id,
                             intValue(values, kInt64Min, kInt64Max, "device id"));
        ids.push_back(id);
      }
    }
  }
  return Status::ok();
}

struct Assignment {
  int64_t replicas = 0;
  int64_t computations = 0;
  std::vector<std::vector<int64_t>> devices;  // per computation, per replica
};

StatusOr<Assignment> readDeviceAssignment(std::string_view bytes) {
  WireReader reader(bytes, "DeviceAssignmentProto");
  Assignment out;
  while (!reader.done()) {
    int field = 0, wireType = 0;
    JFT_RETURN_IF_ERROR(reader.tag(field, wireType));
    if (field == 1 || field == 2) {
      JFT_RETURN_IF_ERROR(reader.expect(wireType, kVarint, "a device assignment count"));
      JFT_ASSIGN_OR_RETURN(int64_t count, intValue(reader, 0, kIntMax, "a count"));
      (field == 1 ? out.replicas : out.computations) = count;
    } else if (field == 3) {
      JFT_RETURN_IF_ERROR(
          reader.expect(wireType, kLengthDelimited, "computation_devices"));
      JFT_ASSIGN_OR_RETURN(std::string_view computation, reader.lengthDelimited());
      JFT_RETURN_IF_ERROR(readReplicaIds(computation, out.devices.emplace_back()));
    } else {
      JFT_RETURN_IF_ERROR(reader.skip(wireType));
    }
  }
  if (static_cast<int64_t>(out.devices.size()) != out.computations)
    return invalidArgument(
        "device assignment lists " + std::to_string(out.devices.size()) +
        " computations but says computation_count = " + std::to_string(out.computations));
  for (const std::vector<int64_t>& ids : out.devices) {
    if (static_cast<int64_t>(ids.size()) != out.replicas)
      return invalidArgument(
          "device assignment has a computation with " + std::to_string(ids.size()) +
          " devices for replica_count = " + std::to_string(out.replicas));
  }
  return out;
}

Status readBuildOptions(std::string_view bytes, CompileOptions& options,
                        std::optional<Assignment>& assignment) {
  WireReader reader(bytes, "ExecutableBuildOptionsProto");
  while (!reader.done()) {
    int field = 0, wireType = 0;
    JFT_RETURN_IF_ERROR(reader.tag(field, wireType));
    if (field == 1) {
      JFT_RETURN_IF_ERROR(reader.expect(wireType, kVarint, "device_ordinal"));
      JFT_ASSIGN_OR_RETURN(options.device_ordinal,
                           intValue(reader, kInt64Min, kInt64Max, "device_ordinal"));
    } else if (field == 4 || field == 5) {
      JFT_RETURN_IF_ERROR(reader.expect(wireType, kVarint, "a replica/partition count"));
      const char* name = field == 4 ? "num_replicas" : "num_partitions";
      JFT_ASSIGN_OR_RETURN(int64_t count, intValue(reader, 0, kIntMax, name));
      // proto3 leaves 0 for "not set"; XLA reads that as one.
      (field == 4 ? options.num_replicas : options.num_partitions) =
          count == 0 ? 1 : static_cast<int>(count);
    } else if (field == 9) {
      JFT_RETURN_IF_ERROR(reader.expect(wireType, kLengthDelimited, "device_assignment"));
      JFT_ASSIGN_OR_RETURN(std::string_view nested, reader.lengthDelimited());
      JFT_ASSIGN_OR_RETURN(assignment, readDeviceAssignment(nested));
    } else {
      JFT_RETURN_IF_ERROR(reader.skip(wireType));
    }
  }
  return Status::ok();
}

// One env_option_overrides map entry: key (1), OptionOverrideProto (2).
Status readOptionOverride(std::string_view bytes, CompileOptions& options) {
  WireReader reader(bytes, "CompileOptionsProto.env_option_overrides entry");
  std::string key;
  while (!reader.done()) {
    int field = 0, wireType = 0;
    JFT_RETURN_IF_ERROR(reader.tag(field, wireType));
    if (field != 1) {
      JFT_RETURN_IF_ERROR(reader.skip(wireType));
      continue;
    }
    JFT_RETURN_IF_ERROR(reader.expect(wireType, kLengthDelimited, "an option name"));
    JFT_ASSIGN_OR_RETURN(std::string_view name, reader.lengthDelimited());
    key.assign(name);
  }
  if (!key.starts_with("xla_"))
    return invalidArgument("No such compile option: '" + key + "'");
  options.option_overrides.push_back(std::move(key));
  return Status::ok();
}

}  // namespace

StatusOr<CompileOptions> parseCompileOptions(std::string_view bytes) {
  CompileOptions options;
  std::optional<Assignment> assignment;
  WireReader reader(bytes, "CompileOptionsProto");
  while (!reader.done()) {
    int field = 0, wireType = 0;
    JFT_RETURN_IF_ERROR(reader.tag(field, wireType));
    if (field == 3) {
      JFT_RETURN_IF_ERROR(
          reader.expect(wireType, kLengthDelimited, "executable_build_options"));
      JFT_ASSIGN_OR_RETURN(std::string_view nested, reader.lengthDelimited());
      JFT_RETURN_IF_ERROR(readBuildOptions(nested, options, assignment));
    } else if (field == 4) {
      JFT_RETURN_IF_ERROR(
          reader.expect(wireType, kVarint, "compile_portable_executable"));
      JFT_ASSIGN_OR_RETURN(uint64_t flag, reader.varint());
      options.portable = flag != 0;
    } else if (field == 7) {
      JFT_RETURN_IF_ERROR(
          reader.expect(wireType, kLengthDelimited, "env_option_overrides"));
      JFT_ASSIGN_OR_RETURN(std::string_view entry, reader.lengthDelimited());
      JFT_RETURN_IF_ERROR(readOptionOverride(entry, options));
    } else {
      JFT_RETURN_IF_ERROR(reader.skip(wireType));
    }
  }
  // An empty assignment (portable executables) says nothing about placement.
  if (assignment.has_value() && assignment->replicas * assignment->computations > 0) {
    if (assignment->replicas != options.num_replicas ||
        assignment->computations != options.num_partitions)
      return invalidArgument("the device assignment is " +
                             std::to_string(assignment->replicas) + " replicas x " +
                             std::to_string(assignment->computations) +
                             " computations but the build options ask for " +
                             std::to_string(options.num_replicas) + " x " +
                             std::to_string(options.num_partitions));
    for (int64_t r = 0; r < assignment->replicas; ++r) {
      for (int64_t p = 0; p < assignment->computations; ++p)
        options.device_assignment.push_back(
            assignment->devices[static_cast<size_t>(p)][static_cast<size_t>(r)]);
    }
  }
  return options;
}

}  // namespace jft::pjrt
