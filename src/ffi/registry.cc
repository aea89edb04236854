#include "ffi/registry.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <mutex>

namespace jft::ffi {
namespace {

struct Tables {
  std::mutex mutex;
  std::map<std::string, RegisteredHandler, std::less<>> handlers;
  std::map<std::string, int64_t, std::less<>> types;
  std::map<int64_t, TypeDeleter> deleters;
  int64_t next_type_id = 1;
};

Tables& tables() {
  static Tables* t = new Tables();  // never destroyed: handlers may run at exit
  return *t;
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

bool isOurPlatform(std::string_view platform) {
  const std::string p = lower(platform);
  return p == "cuda" || p == "gpu";
}

Status registerHandler(std::string_view target, std::string_view platform,
                       const RegisteredHandler& handler) {
  if (target.empty()) return invalidArgument("an FFI handler needs a target name");
  if (!isOurPlatform(platform))
    return invalidArgument("FFI handler for '" + std::string(target) +
                           "' names platform '" + std::string(platform) +
                           "'; the jax-flagtree plugin runs platform CUDA");
  if (handler.bundle.execute == nullptr)
    return invalidArgument("FFI handler for '" + std::string(target) +
                           "' has no execute function");
  Tables& t = tables();
  std::lock_guard<std::mutex> lock(t.mutex);
  auto it = t.handlers.find(target);
  if (it != t.handlers.end()) {
    if (it->second.bundle.execute == handler.bundle.execute) return Status::ok();
    return Status(
        StatusCode::kAlreadyExists,
        "an FFI handler for '" + std::string(target) + "' is already registered");
  }
  t.handlers.emplace(std::string(target), handler);
  return Status::ok();
}

std::optional<RegisteredHandler> findHandler(std::string_view target) {
  Tables& t = tables();
  std::lock_guard<std::mutex> lock(t.mutex);
  auto it = t.handlers.find(target);
  if (it == t.handlers.end()) return std::nullopt;
  return it->second;
}

StatusOr<int64_t> registerType(std::string_view name, int64_t type_id) {
  Tables& t = tables();
  std::lock_guard<std::mutex> lock(t.mutex);
  auto it = t.types.find(name);
  if (it != t.types.end()) {
    if (type_id == 0 || type_id == it->second) return it->second;
    return Status(StatusCode::kAlreadyExists,
                  "FFI type '" + std::string(name) + "' is registered with id " +
                      std::to_string(it->second) + ", not " + std::to_string(type_id));
  }
  if (type_id == 0) {
    // Fresh ids stay clear of ids a framework assigned (addresses or small
    // counters): ours count down from the top.
    type_id = (int64_t{1} << 62) - t.next_type_id++;
  }
  t.types.emplace(std::string(name), type_id);
  return type_id;
}

void setTypeDeleter(int64_t type_id, TypeDeleter deleter) {
  Tables& t = tables();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.deleters[type_id] = deleter;
}

TypeDeleter typeDeleter(int64_t type_id) {
  Tables& t = tables();
  std::lock_guard<std::mutex> lock(t.mutex);
  auto it = t.deleters.find(type_id);
  return it == t.deleters.end() ? nullptr : it->second;
}

}  // namespace jft::ffi
