// The build identity: the binary that holds this code, hashed once.
#include "pjrt/build_identity.h"

#include <dlfcn.h>

#include <cstdio>

#include "compiler/fingerprint.h"
#include "support/atomic_file.h"
#include "support/byte_stream.h"

#ifndef JFT_PROJECT_VERSION
#define JFT_PROJECT_VERSION "unknown"
#endif

namespace jft::pjrt {
namespace {

std::string binaryHash() {
  Dl_info where{};
  if (dladdr(reinterpret_cast<void*>(&binaryHash), &where) == 0 ||
      where.dli_fname == nullptr)
    return "unknown";
  auto bytes = readWholeFile(where.dli_fname);
  if (!bytes.isOk()) return "unknown";
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx",
                static_cast<unsigned long long>(fnv1a64(*bytes)));
  return hex;
}

}  // namespace

const std::string& buildIdentity() {
  static const std::string identity = "jax-flagtree " JFT_PROJECT_VERSION "; " +
                                      std::string(compiler::kPipelineVersion) +
                                      "; binary " + binaryHash();
  return identity;
}

}  // namespace jft::pjrt
