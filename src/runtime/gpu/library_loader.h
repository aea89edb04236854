// Loading a vendor library with dlopen: the first candidate file that loads
// and has every entry point we use wins, and lives for the process. Shared
// by the driver and every library runner (cuBLASLt, cuBLAS, cuSOLVER, cuFFT,
// cuDNN, NCCL), whose entry points are X-macro lists in their *_api.h:
// X(member, symbol, signature).
#pragma once

#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "support/status.h"

namespace jft::runtime::gpu {

// Opens the first of $env, then `names`, in which every entry point is found:
// the library's list (JFT_ENTRY_POINTS), then any that `resolve_more` looks
// up (it returns the first missing symbol, or ""). The error lists each file
// tried and why it was passed over, and says how to point us at the library
// (`install`: e.g. "the nvidia-cufft wheel").
template <typename Library>
StatusOr<Library*> openVendorLibrary(
    const char* env, std::vector<std::string> names, const std::string& what,
    const std::string& install,
    const std::function<std::string(void*, Library&)>& resolve_more = nullptr) {
  if (const char* path = std::getenv(env); path != nullptr && *path != '\0')
    names.insert(names.begin(), path);
  std::string tried;
  for (const std::string& name : names) {
    void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* reason = dlerror();
      tried += "\n  " + name + ": " + (reason != nullptr ? reason : "not found");
      continue;
    }
    auto* library = new Library();  // lives for the process, like the library
    library->library_name = name;
    std::string missing = library->resolveEntryPoints(handle);
    if (missing.empty() && resolve_more) missing = resolve_more(handle, *library);
    if (missing.empty()) return library;
    delete library;
    dlclose(handle);
    tried += "\n  " + name + ": lacks " + missing;
  }
  return unavailable("cannot load " + what + " (set " + env +
                     " to its path, or install the CUDA toolkit or " + install +
                     "); tried:" + tried);
}

// Looks `symbol` up into `out`; false when it is missing.
template <typename Fn>
bool lookUpSymbol(void* handle, const std::string& symbol, Fn& out) {
  out = reinterpret_cast<Fn>(dlsym(handle, symbol.c_str()));
  return out != nullptr;
}

// The process-wide library: `open` runs on first use only, and its result
// (the library, or why there is none) answers every later call too.
template <typename Library>
StatusOr<const Library*> loadOnce(StatusOr<Library*> (*open)()) {
  static std::once_flag once;
  static StatusOr<Library*>* loaded = nullptr;
  std::call_once(once, [open] { loaded = new StatusOr<Library*>(open()); });
  if (!loaded->isOk()) return loaded->status();
  return static_cast<const Library*>(loaded->value());
}

// A device address as the pointer the libraries take.
inline void* devicePointer(uint64_t address) {
  return reinterpret_cast<void*>(static_cast<uintptr_t>(address));
}

}  // namespace jft::runtime::gpu

// In a library's class: one member per entry point of `LIST`, and
// resolveEntryPoints(handle), which looks each up and returns the first
// missing symbol ("" when every one is there).
#define JFT_ENTRY_POINTS(LIST)                   \
  LIST(JFT_DECLARE_ENTRY_POINT)                  \
  std::string resolveEntryPoints(void* handle) { \
    auto& library = *this;                       \
    LIST(JFT_RESOLVE_ENTRY_POINT)                \
    return "";                                   \
  }

// The two halves of JFT_ENTRY_POINTS, one entry point each.
#define JFT_DECLARE_ENTRY_POINT(member, symbol, signature) \
  std::type_identity_t<signature> member = nullptr;
#define JFT_RESOLVE_ENTRY_POINT(member, symbol, signature) \
  if (!::jft::runtime::gpu::lookUpSymbol(handle, symbol, library.member)) return symbol;
