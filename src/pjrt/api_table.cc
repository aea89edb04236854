// GetPjrtApi: the one exported symbol. Builds the function table once from
// api_slots.def: each slot gets our entry point, or a stub that answers
// UNIMPLEMENTED naming its function.
#include <string>

#include "pjrt/abi.h"
#include "pjrt/args.h"
#include "pjrt/entry_points.h"
#include "pjrt/error.h"
#include "pjrt/ffi_extension.h"

namespace jft::pjrt {
namespace {

PJRT_Error* notImplemented(const char* function) {
  if (traceCalls()) traceCall(function);
  return toPjrtError(
      unimplemented(std::string(function) + " is not implemented by jax-flagtree"));
}

#define JFT_PJRT_STUB(name)               \
  PJRT_Error* stub_##name(void*) {        \
    return notImplemented("PJRT_" #name); \
  }
#define JFT_PJRT_SLOT(name, function)
#define JFT_PJRT_VOID_SLOT(name, function)
#include "pjrt/api_slots.def"
#undef JFT_PJRT_VOID_SLOT
#undef JFT_PJRT_SLOT
#undef JFT_PJRT_STUB

template <typename Function>
PJRT_SlotFn slot(Function* function) {
  return reinterpret_cast<PJRT_SlotFn>(function);
}

PJRT_Api buildApi() {
  PJRT_Api api{};
  api.struct_size = abi::kApiSize;
  api.extension_start = extensionChain();  // FFI and GPU custom-call extensions
  api.pjrt_api_version.struct_size = JFT_ABI_SIZE_UP_TO(PJRT_Api_Version, minor_version);
  api.pjrt_api_version.major_version = abi::kMajorVersion;
  api.pjrt_api_version.minor_version = abi::kMinorVersion;
#define JFT_PJRT_SLOT(name, function) api.PJRT_##name = slot(&function);
#define JFT_PJRT_VOID_SLOT JFT_PJRT_SLOT
#define JFT_PJRT_STUB(name) api.PJRT_##name = slot(&stub_##name);
#include "pjrt/api_slots.def"
#undef JFT_PJRT_STUB
#undef JFT_PJRT_VOID_SLOT
#undef JFT_PJRT_SLOT
  return api;
}

}  // namespace
}  // namespace jft::pjrt

extern "C" __attribute__((visibility("default"))) const PJRT_Api* GetPjrtApi() {
  static const PJRT_Api api = jft::pjrt::buildApi();
  return &api;
}
