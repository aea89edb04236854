#include "ffi/user_data.h"

#include <string>

namespace jft::ffi {

TypedObjects::~TypedObjects() {
  for (auto& [id, entry] : entries_)
    if (entry.deleter != nullptr) entry.deleter(entry.data);
}

Status TypedObjects::add(int64_t type_id, void* data, Deleter deleter) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (entries_.contains(type_id))
    return Status(
        StatusCode::kAlreadyExists,
        "an object of FFI type id " + std::to_string(type_id) + " is already set");
  entries_[type_id] = Entry{data, deleter};
  return Status::ok();
}

void* TypedObjects::find(int64_t type_id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(type_id);
  return it == entries_.end() ? nullptr : it->second.data;
}

bool TypedObjects::empty() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.empty();
}

}  // namespace jft::ffi
