// Create-option parsing.
#include "pjrt/create_options.h"

#include <limits>

namespace jft::pjrt {
namespace {

Status expectType(const PJRT_NamedValue& value, const std::string& name,
                  PJRT_NamedValue_Type type, const char* typeName) {
  if (value.type == type) return Status::ok();
  return invalidArgument("create option '" + name + "' must be " + typeName);
}

StatusOr<std::string> stringValue(const PJRT_NamedValue& value, const std::string& name) {
  JFT_RETURN_IF_ERROR(expectType(value, name, PJRT_NamedValue_kString, "a string"));
  if (value.value_size > 0 && value.string_value == nullptr)
    return invalidArgument("create option '" + name + "' has a null string");
  return std::string(value.string_value != nullptr ? value.string_value : "",
                     value.value_size);
}

// `allocator`: JAX accepts default, platform, bfc and cuda_async. The three
// that are not "platform" all mean a caching allocator: ours is the pool.
StatusOr<runtime::MemoryOptions::Allocator> allocatorValue(const std::string& text) {
  if (text == "platform") return runtime::MemoryOptions::Allocator::kPlatform;
  if (text == "default" || text == "bfc" || text == "cuda_async")
    return runtime::MemoryOptions::Allocator::kPool;
  return invalidArgument("create option 'allocator' is '" + text +
                         "'; XLA_PYTHON_CLIENT_ALLOCATOR must be default, platform, bfc "
                         "or cuda_async");
}

}  // namespace

StatusOr<ClientOptions> parseClientOptions(const PJRT_NamedValue* options, size_t count) {
  ClientOptions parsed;
  if (count > 0 && options == nullptr)
    return invalidArgument("create_options is null but num_options is " +
                           std::to_string(count));
  for (size_t i = 0; i < count; ++i) {
    const PJRT_NamedValue& value = options[i];
    if (value.name == nullptr && value.name_size > 0)
      return invalidArgument("create option " + std::to_string(i) + " has a null name");
    std::string name(value.name != nullptr ? value.name : "", value.name_size);
    if (name == "python_executable") {
      JFT_ASSIGN_OR_RETURN(parsed.python_executable, stringValue(value, name));
    } else if (name == "worker_module") {
      JFT_ASSIGN_OR_RETURN(parsed.worker_module, stringValue(value, name));
    } else if (name == "compiler_fingerprint") {
      JFT_ASSIGN_OR_RETURN(parsed.compiler_fingerprint, stringValue(value, name));
    } else if (name == "visible_devices") {
      JFT_RETURN_IF_ERROR(
          expectType(value, name, PJRT_NamedValue_kInt64List, "a list of integers"));
      if (value.value_size > 0 && value.int64_array_value == nullptr)
        return invalidArgument("create option 'visible_devices' has a null list");
      for (size_t j = 0; j < value.value_size; ++j) {
        int64_t ordinal = value.int64_array_value[j];
        if (ordinal < 0 || ordinal > std::numeric_limits<int>::max())
          return invalidArgument("visible_devices holds an invalid ordinal " +
                                 std::to_string(ordinal));
        parsed.visible_devices.push_back(static_cast<int>(ordinal));
      }
    } else if (name == "compile_workers") {
      JFT_RETURN_IF_ERROR(expectType(value, name, PJRT_NamedValue_kInt64, "an integer"));
      if (value.int64_value < 1 || value.int64_value > 256)
        return invalidArgument(
            "create option 'compile_workers' must be in [1, 256], not " +
            std::to_string(value.int64_value));
      parsed.compile_workers = static_cast<int>(value.int64_value);
    } else if (name == "node_id" || name == "num_nodes") {
      JFT_RETURN_IF_ERROR(expectType(value, name, PJRT_NamedValue_kInt64, "an integer"));
      if (value.int64_value < 0 || value.int64_value > std::numeric_limits<int>::max())
        return invalidArgument("create option '" + name +
                               "' is out of range: " + std::to_string(value.int64_value));
      (name == "node_id" ? parsed.node_id : parsed.num_nodes) =
          static_cast<int>(value.int64_value);
    } else if (name == "allocator") {
      JFT_ASSIGN_OR_RETURN(std::string text, stringValue(value, name));
      JFT_ASSIGN_OR_RETURN(parsed.memory.allocator, allocatorValue(text));
    } else if (name == "memory_fraction") {
      JFT_RETURN_IF_ERROR(expectType(value, name, PJRT_NamedValue_kFloat, "a float"));
      if (!(value.float_value > 0.0f && value.float_value <= 1.0f))
        return invalidArgument("create option 'memory_fraction' must be in (0, 1], not " +
                               std::to_string(value.float_value) +
                               " (XLA_PYTHON_CLIENT_MEM_FRACTION)");
      parsed.memory.fraction = value.float_value;
    } else if (name == "preallocate") {
      JFT_RETURN_IF_ERROR(expectType(value, name, PJRT_NamedValue_kBool, "a bool"));
      parsed.memory.preallocate = value.bool_value;
    } else {
      parsed.ignored.push_back(std::move(name));
    }
  }
  if (parsed.num_nodes < 1)
    return invalidArgument("create option 'num_nodes' must be at least 1, not " +
                           std::to_string(parsed.num_nodes));
  if (parsed.node_id >= parsed.num_nodes)
    return invalidArgument("create option 'node_id' " + std::to_string(parsed.node_id) +
                           " is not below num_nodes " + std::to_string(parsed.num_nodes));
  return parsed;
}

}  // namespace jft::pjrt
