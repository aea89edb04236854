// Opening cuSOLVER and cuBLAS: the first candidate file that loads and has
// every entry point we use wins; each library lives for the process.
#include "runtime/gpu/cusolver_library.h"

#include <cstdlib>
#include <functional>
#include <mutex>
#include <vector>

#include "runtime/gpu/library_loader.h"
#include "support/enum_table.h"

namespace jft::runtime::gpu {
namespace {

constexpr const char* kTypeLetters[4] = {"S", "D", "C", "Z"};

// A routine and its workspace query `name`_bufferSize: the first of the two
// the library lacks, or "".
template <typename SizeFn, typename Fn>
std::string lookUpRoutine(void* handle, const std::string& name, SizeFn& size, Fn& fn) {
  if (!lookUpSymbol(handle, name + "_bufferSize", size)) return name + "_bufferSize";
  return lookUpSymbol(handle, name, fn) ? "" : name;
}

std::string resolveCusolver(void* handle, CusolverLibrary& library) {
  for (int t = 0; t < 4; ++t) {
    const std::string x = std::string("cusolverDn") + kTypeLetters[t];
#define JFT_RESOLVE_TYPED_ROUTINE(member, Type, name, complex_name)          \
  if (std::string missing =                                                  \
          lookUpRoutine(handle, x + (t < 2 ? name : complex_name),           \
                        library.member##_buffer_size[t], library.member[t]); \
      !missing.empty())                                                      \
    return missing;
    JFT_CUSOLVER_TYPED_ROUTINES(JFT_RESOLVE_TYPED_ROUTINE)
#undef JFT_RESOLVE_TYPED_ROUTINE
  }
  // Newer than the rest: its absence only leaves geev unavailable.
  if (!lookUpSymbol(handle, "cusolverDnXgeev_bufferSize", library.geev_buffer_size) ||
      !lookUpSymbol(handle, "cusolverDnXgeev", library.geev)) {
    library.geev_buffer_size = nullptr;
    library.geev = nullptr;
  }
  return "";
}

std::string resolveCublas(void* handle, CublasLibrary& library) {
  for (int t = 0; t < 4; ++t) {
    const std::string symbol = std::string("cublas") + kTypeLetters[t] + "trsm_v2";
    if (!lookUpSymbol(handle, symbol, library.trsm[t])) return symbol;
  }
  return "";
}

StatusOr<CusolverLibrary*> openCusolver() {
  return openVendorLibrary<CusolverLibrary>(
      "JFT_CUSOLVER_LIBRARY",
      {"libcusolver.so.12", "libcusolver.so.11", "libcusolver.so"}, "cuSOLVER",
      "the nvidia wheel", resolveCusolver);
}

StatusOr<CublasLibrary*> openCublas() {
  return openVendorLibrary<CublasLibrary>(
      "JFT_CUBLAS_LIBRARY", {"libcublas.so.13", "libcublas.so.12", "libcublas.so"},
      "cuBLAS", "the nvidia wheel", resolveCublas);
}

// clang-format off
constexpr EnumName<cusolverStatus_t> kStatusNames[] = {
    {kCusolverNotInitialized, "CUSOLVER_STATUS_NOT_INITIALIZED"},
    {kCusolverAllocFailed, "CUSOLVER_STATUS_ALLOC_FAILED"},
    {kCusolverInvalidValue, "CUSOLVER_STATUS_INVALID_VALUE"},
    {kCusolverArchMismatch, "CUSOLVER_STATUS_ARCH_MISMATCH"},
    {kCusolverExecutionFailed, "CUSOLVER_STATUS_EXECUTION_FAILED"},
    {kCusolverInternalError, "CUSOLVER_STATUS_INTERNAL_ERROR"},
    {kCusolverNotSupported, "CUSOLVER_STATUS_NOT_SUPPORTED"},
};
// clang-format on

const char* cusolverStatusName(cusolverStatus_t status) {
  return nameOf(kStatusNames, status, "cuSOLVER error");
}

// A library status as ours: NOT_SUPPORTED is UNIMPLEMENTED, ALLOC_FAILED
// RESOURCE_EXHAUSTED, anything else INTERNAL.
Status statusOf(bool notSupported, bool allocFailed, const std::string& message) {
  if (notSupported) return unimplemented(message);
  if (allocFailed) return resourceExhausted(message);
  return internalError(message);
}

}  // namespace

// clang-format off
constexpr EnumMapping<SolverType, int> kTypeIndices[] = {
    {SolverType::kF32, 0}, {SolverType::kF64, 1}, {SolverType::kC64, 2},
    {SolverType::kC128, 3}, {SolverType::kS32, -1},
};
// clang-format on

int solverTypeIndex(SolverType type) {
  return mapOf(kTypeIndices, type, -1);
}

StatusOr<const CusolverLibrary*> CusolverLibrary::load() {
  return loadOnce(openCusolver);
}

Status CusolverLibrary::check(cusolverStatus_t status, const std::string& what) const {
  if (status == kCusolverSuccess) return Status::ok();
  return statusOf(status == kCusolverNotSupported, status == kCusolverAllocFailed,
                  what + " failed: " + cusolverStatusName(status) + " (" +
                      std::to_string(status) + ")");
}

StatusOr<const CublasLibrary*> CublasLibrary::load() {
  return loadOnce(openCublas);
}

Status CublasLibrary::check(cublasStatusCode_t status, const std::string& what) const {
  if (status == kCublasStatusSuccess) return Status::ok();
  const char* name = getStatusName != nullptr ? getStatusName(status) : nullptr;
  const char* text = getStatusString != nullptr ? getStatusString(status) : nullptr;
  return statusOf(status == kCublasStatusNotSupported, status == kCublasStatusAllocFailed,
                  what + " failed: " + (name != nullptr ? name : "cuBLAS error") + " (" +
                      std::to_string(status) + ")" +
                      (text != nullptr ? std::string(": ") + text : ""));
}

}  // namespace jft::runtime::gpu
