// Opening cuSOLVER and cuBLAS: the first candidate file that loads and has
// every entry point we use wins; each library lives for the process.
#include "runtime/gpu/cusolver_library.h"

#include <cstdlib>
#include <functional>
#include <mutex>
#include <vector>

#include "runtime/gpu/library_loader.h"

namespace jft::runtime::gpu {
namespace {

constexpr const char* kTypeLetters[4] = {"S", "D", "C", "Z"};

std::string resolveCusolver(void* handle, CusolverLibrary& lib) {
#define JFT_RESOLVE_SOLVER_FN(member, symbol, signature) \
  if (!lookUpSymbol(handle, symbol, lib.member)) return symbol;
  JFT_CUSOLVER_FUNCTIONS(JFT_RESOLVE_SOLVER_FN)
#undef JFT_RESOLVE_SOLVER_FN
  for (int t = 0; t < 4; ++t) {
    const std::string prefix = std::string("cusolverDn") + kTypeLetters[t];
    const std::string orgqr = t < 2 ? "orgqr" : "ungqr";
    const std::string ev = t < 2 ? "sy" : "he";
    const std::string mqr = t < 2 ? "ormqr" : "unmqr";
    const std::pair<std::string, bool> found[] = {
        {prefix + "getrf_bufferSize",
         lookUpSymbol(handle, prefix + "getrf_bufferSize", lib.getrfBufferSize[t])},
        {prefix + "getrf", lookUpSymbol(handle, prefix + "getrf", lib.getrf[t])},
        {prefix + "potrf_bufferSize",
         lookUpSymbol(handle, prefix + "potrf_bufferSize", lib.potrfBufferSize[t])},
        {prefix + "potrf", lookUpSymbol(handle, prefix + "potrf", lib.potrf[t])},
        {prefix + "geqrf_bufferSize",
         lookUpSymbol(handle, prefix + "geqrf_bufferSize", lib.geqrfBufferSize[t])},
        {prefix + "geqrf", lookUpSymbol(handle, prefix + "geqrf", lib.geqrf[t])},
        {prefix + orgqr + "_bufferSize",
         lookUpSymbol(handle, prefix + orgqr + "_bufferSize", lib.orgqrBufferSize[t])},
        {prefix + orgqr, lookUpSymbol(handle, prefix + orgqr, lib.orgqr[t])},
        {prefix + ev + "evd_bufferSize",
         lookUpSymbol(handle, prefix + ev + "evd_bufferSize", lib.syevdBufferSize[t])},
        {prefix + ev + "evd", lookUpSymbol(handle, prefix + ev + "evd", lib.syevd[t])},
        {prefix + ev + "evj_bufferSize",
         lookUpSymbol(handle, prefix + ev + "evj_bufferSize", lib.syevjBufferSize[t])},
        {prefix + ev + "evj", lookUpSymbol(handle, prefix + ev + "evj", lib.syevj[t])},
        {prefix + ev + "evjBatched_bufferSize",
         lookUpSymbol(handle, prefix + ev + "evjBatched_bufferSize",
                      lib.syevjBatchedBufferSize[t])},
        {prefix + ev + "evjBatched",
         lookUpSymbol(handle, prefix + ev + "evjBatched", lib.syevjBatched[t])},
        {prefix + "gesvdj_bufferSize",
         lookUpSymbol(handle, prefix + "gesvdj_bufferSize", lib.gesvdjBufferSize[t])},
        {prefix + "gesvdj", lookUpSymbol(handle, prefix + "gesvdj", lib.gesvdj[t])},
        {prefix + "gesvdjBatched_bufferSize",
         lookUpSymbol(handle, prefix + "gesvdjBatched_bufferSize",
                      lib.gesvdjBatchedBufferSize[t])},
        {prefix + "gesvdjBatched",
         lookUpSymbol(handle, prefix + "gesvdjBatched", lib.gesvdjBatched[t])},
        {prefix + "gesvd_bufferSize",
         lookUpSymbol(handle, prefix + "gesvd_bufferSize", lib.gesvdBufferSize[t])},
        {prefix + "gesvd", lookUpSymbol(handle, prefix + "gesvd", lib.gesvd[t])},
        {prefix + ev + "trd_bufferSize",
         lookUpSymbol(handle, prefix + ev + "trd_bufferSize", lib.sytrdBufferSize[t])},
        {prefix + ev + "trd", lookUpSymbol(handle, prefix + ev + "trd", lib.sytrd[t])},
        {prefix + mqr + "_bufferSize",
         lookUpSymbol(handle, prefix + mqr + "_bufferSize", lib.ormqrBufferSize[t])},
        {prefix + mqr, lookUpSymbol(handle, prefix + mqr, lib.ormqr[t])}};
    for (const auto& [symbol, ok] : found)
      if (!ok) return symbol;
  }
  // Newer than the rest: its absence only leaves geev unavailable.
  if (!lookUpSymbol(handle, "cusolverDnXgeev_bufferSize", lib.geevBufferSize) ||
      !lookUpSymbol(handle, "cusolverDnXgeev", lib.geev)) {
    lib.geevBufferSize = nullptr;
    lib.geev = nullptr;
  }
  return "";
}

std::string resolveCublas(void* handle, CublasLibrary& lib) {
#define JFT_RESOLVE_BLAS_FN(member, symbol, signature) \
  if (!lookUpSymbol(handle, symbol, lib.member)) return symbol;
  JFT_CUBLAS_FUNCTIONS(JFT_RESOLVE_BLAS_FN)
#undef JFT_RESOLVE_BLAS_FN
  for (int t = 0; t < 4; ++t) {
    const std::string symbol = std::string("cublas") + kTypeLetters[t] + "trsm_v2";
    if (!lookUpSymbol(handle, symbol, lib.trsm[t])) return symbol;
  }
  return "";
}

const char* cusolverStatusName(cusolverStatus_t status) {
  switch (status) {
    case kCusolverNotInitialized:
      return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case kCusolverAllocFailed:
      return "CUSOLVER_STATUS_ALLOC_FAILED";
    case kCusolverInvalidValue:
      return "CUSOLVER_STATUS_INVALID_VALUE";
    case kCusolverArchMismatch:
      return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case kCusolverExecutionFailed:
      return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case kCusolverInternalError:
      return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case kCusolverNotSupported:
      return "CUSOLVER_STATUS_NOT_SUPPORTED";
    default:
      return "cuSOLVER error";
  }
}

// A library status as ours: NOT_SUPPORTED is UNIMPLEMENTED, ALLOC_FAILED
// RESOURCE_EXHAUSTED, anything else INTERNAL.
Status statusOf(bool notSupported, bool allocFailed, const std::string& message) {
  if (notSupported) return unimplemented(message);
  if (allocFailed) return resourceExhausted(message);
  return internalError(message);
}

}  // namespace

int solverTypeIndex(SolverType type) {
  switch (type) {
    case SolverType::kF32:
      return 0;
    case SolverType::kF64:
      return 1;
    case SolverType::kC64:
      return 2;
    case SolverType::kC128:
      return 3;
    case SolverType::kS32:
      return -1;
  }
  return -1;
}

StatusOr<const CusolverLibrary*> CusolverLibrary::load() {
  static std::once_flag once;
  static StatusOr<CusolverLibrary*>* loaded = nullptr;
  std::call_once(once, [] {
    loaded = new StatusOr<CusolverLibrary*>(openVendorLibrary<CusolverLibrary>(
        "JFT_CUSOLVER_LIBRARY",
        {"libcusolver.so.12", "libcusolver.so.11", "libcusolver.so"}, "cuSOLVER",
        "the nvidia wheel", resolveCusolver));
  });
  if (!loaded->isOk()) return loaded->status();
  return static_cast<const CusolverLibrary*>(loaded->value());
}

Status CusolverLibrary::check(cusolverStatus_t status, const std::string& what) const {
  if (status == kCusolverSuccess) return Status::ok();
  return statusOf(status == kCusolverNotSupported, status == kCusolverAllocFailed,
                  what + " failed: " + cusolverStatusName(status) + " (" +
                      std::to_string(status) + ")");
}

StatusOr<const CublasLibrary*> CublasLibrary::load() {
  static std::once_flag once;
  static StatusOr<CublasLibrary*>* loaded = nullptr;
  std::call_once(once, [] {
    loaded = new StatusOr<CublasLibrary*>(openVendorLibrary<CublasLibrary>(
        "JFT_CUBLAS_LIBRARY", {"libcublas.so.13", "libcublas.so.12", "libcublas.so"},
        "cuBLAS", "the nvidia wheel", resolveCublas));
  });
  if (!loaded->isOk()) return loaded->status();
  return static_cast<const CublasLibrary*>(loaded->value());
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
