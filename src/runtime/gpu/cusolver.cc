// The solver runner: each SolverDesc kind as library calls on the device's
// stream. Descriptions are column-major already (the compiler mapped our
// row-major values onto them), so nothing here swaps or transposes.
#include "runtime/gpu/cusolver.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/gpu/cuda_device.h"
#include "runtime/gpu/cusolver_library.h"
#include "support/enum_table.h"

namespace jft::runtime::gpu {
namespace {

// The batched Jacobi routines take the batch size as an int.
constexpr int64_t kMaxBatch = 0x7fffffff;

// The 64-bit API's cudaDataType_t of a matrix element type.
// clang-format off
constexpr EnumMapping<SolverType, int> kCusolverDataTypes[] = {
    {SolverType::kF64, kSolverDataR64F}, {SolverType::kC64, kSolverDataC32F},
    {SolverType::kC128, kSolverDataC64F},
};
// clang-format on

int solverDataType(SolverType type) {
  return mapOf(kCusolverDataTypes, type, kSolverDataR32F);
}

uint64_t elementBytesOf(const SolverDesc& d) {
  return static_cast<uint64_t>(solverTypeBytes(d.type));
}

// Bytes between one item's a, s, u and v and the next's, for the SVDs that
// keep k = min(m, n) singular values and full (m x m, n x n) or economy
// (m x k, n x k) vectors: gesvdj and gesvdp.
struct SvdStrides {
  uint64_t a, s, u, v;
};

SvdStrides svdStrides(const SolverDesc& d) {
  const int64_t k = std::min(d.m, d.n);
  const uint64_t elementBytes = elementBytesOf(d);
  return {static_cast<uint64_t>(d.m * d.n) * elementBytes,
          static_cast<uint64_t>(k * solverTypeBytes(solverRealType(d.type))),
          static_cast<uint64_t>(d.m * (d.full_matrices ? d.m : k)) * elementBytes,
          static_cast<uint64_t>(d.n * (d.full_matrices ? d.n : k)) * elementBytes};
}

// The pivots and the permutation of one lu_pivots_to_permutation call, in
// pinned memory owned by the runner; freed by the host function.
struct PermutationJob {
  const int32_t* pivots = nullptr;
  int32_t* permutation = nullptr;
  int64_t batch = 0, n = 0, m = 0;
};

void runPermutationJob(void* data) {
  std::unique_ptr<PermutationJob> job(static_cast<PermutationJob*>(data));
  luPivotsToPermutation(job->pivots, job->permutation, job->batch, job->n, job->m);
}

// The factor and vector of one cholesky_update call, in the runner's pinned
// memory; freed by the host function.
struct CholeskyUpdateJob {
  void* r = nullptr;
  void* w = nullptr;
  SolverType type = SolverType::kF32;
  int64_t batch = 0, n = 0;
};

void runCholeskyUpdateJob(void* data) {
  std::unique_ptr<CholeskyUpdateJob> job(static_cast<CholeskyUpdateJob*>(data));
  choleskyRankOneUpdate(job->r, job->w, job->type, job->batch, job->n);
}

class CudaSolverRunner final : public SolverRunner {
 public:
  CudaSolverRunner(CudaDevice& device, const Driver& driver)
      : device_(device), driver_(driver) {}

  ~CudaSolverRunner() override {
    if (makeCurrent().isOk()) {
      if (syevj_params_ != nullptr) solver_->destroySyevjInfo(syevj_params_);
      if (gesvdj_params_ != nullptr) solver_->destroyGesvdjInfo(gesvdj_params_);
      if (params_ != nullptr) solver_->destroyParams(params_);
      if (solver_handle_ != nullptr) solver_->destroy(solver_handle_);
      if (blas_handle_ != nullptr) blas_->destroy(blas_handle_);
    }
    // Both freed behind the work still queued on them.
    if (workspace_ != 0) device_.deallocate(workspace_, workspace_bytes_);
    if (pinned_ != nullptr) device_.deallocatePinned(pinned_);
  }

  Status run(const SolverDesc& desc, const std::vector<uint64_t>& buffers) override {
    JFT_RETURN_IF_ERROR(validateSolver(desc));
    const std::vector<uint64_t> bytes = solverBufferBytes(desc);
    if (buffers.size() != bytes.size())
      return invalidArgument(solverText(desc) + ": " + std::to_string(buffers.size()) +
                             " buffers, not " + std::to_string(bytes.size()));
    std::lock_guard<std::mutex> lock(mutex_);
    JFT_RETURN_IF_ERROR(makeCurrent());
    switch (desc.kind) {
      case SolverKind::kPotrf:
        return potrf(desc, buffers, bytes);
      case SolverKind::kGetrf:
        return getrf(desc, buffers, bytes);
      case SolverKind::kLuPivotsToPermutation:
        return permutation(desc, buffers, bytes);
      case SolverKind::kTriangularSolve:
        return trsm(desc, buffers, bytes);
      case SolverKind::kGeqrf:
        return geqrf(desc, buffers, bytes);
      case SolverKind::kOrgqr:
        return orgqr(desc, buffers, bytes);
      case SolverKind::kSyevd:
        return syevd(desc, buffers, bytes);
      case SolverKind::kGesvdj:
        return gesvdj(desc, buffers, bytes);
      case SolverKind::kSytrd:
        return sytrd(desc, buffers, bytes);
      case SolverKind::kGesvd:
        return gesvd(desc, buffers, bytes);
      case SolverKind::kGesvdp:
        return gesvdp(desc, buffers, bytes);
      case SolverKind::kGeev:
        return geev(desc, buffers, bytes);
      case SolverKind::kOrmqr:
        return ormqr(desc, buffers, bytes);
      case SolverKind::kCholeskyUpdate:
        return choleskyUpdate(desc, buffers, bytes);
    }
    return internalError(solverText(desc) + ": unknown kind");
  }

 private:
  Status makeCurrent() const {
    return driver_.check(driver_.ctxSetCurrent(device_.context()), "cuCtxSetCurrent");
  }

  // `library` loaded and its `handle` made, bound to the device's stream, once.
  template <typename Library, typename Handle>
  Status ensureHandle(const Library*& library, Handle& handle, const char* create,
                      const char* setStream) {
    if (handle != nullptr) return Status::ok();
    JFT_ASSIGN_OR_RETURN(library, Library::load());
    JFT_RETURN_IF_ERROR(library->check(library->create(&handle), create));
    Status bound =
        library->check(library->setStream(handle, device_.stream()), setStream);
    if (bound.isOk()) return bound;
    library->destroy(handle);
    handle = nullptr;
    return bound;
  }

  Status ensureSolver() {
    return ensureHandle(solver_, solver_handle_, "cusolverDnCreate",
                        "cusolverDnSetStream");
  }

  Status ensureBlas() {
    return ensureHandle(blas_, blas_handle_, "cublasCreate", "cublasSetStream");
  }

  // The library workspace, at least `bytes` large.
  StatusOr<uint64_t> workspace(uint64_t bytes) {
    if (bytes <= workspace_bytes_ && workspace_ != 0) return workspace_;
    if (workspace_ != 0) device_.deallocate(workspace_, workspace_bytes_);
    workspace_ = 0;
    workspace_bytes_ = 0;
    JFT_ASSIGN_OR_RETURN(workspace_, device_.allocate(std::max<uint64_t>(bytes, 256)));
    workspace_bytes_ = std::max<uint64_t>(bytes, 256);
    return workspace_;
  }

  // `call(item)` for each item of the batch (its index, as the multiplier of
  // the item's strides), up to the first error.
  template <typename Call>
  static Status eachItem(const SolverDesc& d, Call&& call) {
    for (int64_t i = 0; i < d.batch; ++i)
      JFT_RETURN_IF_ERROR(call(static_cast<uint64_t>(i)));
    return Status::ok();
  }

  // The in-place result starts as the operand it replaces.
  Status copyIn(uint64_t from, uint64_t to, uint64_t bytes) {
    if (from == to) return Status::ok();
    return device_.copyOnDevice(to, from, bytes);
  }

  // The library workspace for `lwork` elements of d's type.
  StatusOr<uint64_t> elementWorkspace(const SolverDesc& d, int lwork) {
    return workspace(static_cast<uint64_t>(lwork) * elementBytesOf(d));
  }

  // A routine's buffers: its in-place result `to` starts as operand `from`;
  // `info` is the info buffer (-1: none, cuSOLVER reports only invalid
  // arguments there, which validation rules out).
  struct InPlace {
    size_t from, to;
    int info;
  };

  // Every cuSOLVER routine's start: the in-place copy; then an empty batch is
  // done, and so are empty matrices once their info is zeroed. False when
  // nothing is left to do; else the solver is ready.
  StatusOr<bool> start(const SolverDesc& d, const std::vector<uint64_t>& buffers,
                       const std::vector<uint64_t>& bytes, InPlace io, bool empty) {
    JFT_RETURN_IF_ERROR(copyIn(buffers[io.from], buffers[io.to], bytes[io.to]));
    if (d.batch == 0) return false;
    if (empty) {
      if (io.info >= 0)
        JFT_RETURN_IF_ERROR(device_.fill(buffers[io.info], 0, bytes[io.info]));
      return false;
    }
    JFT_RETURN_IF_ERROR(ensureSolver());
    return true;
  }

  // buffers: a, factor, info.
  Status potrf(const SolverDesc& d, const std::vector<uint64_t>& buffers,
               const std::vector<uint64_t>& bytes) {
    JFT_ASSIGN_OR_RETURN(bool busy, start(d, buffers, bytes, {0, 1, 2}, d.n == 0));
    if (!busy) return Status::ok();
    const int t = solverTypeIndex(d.type);
    const int n = static_cast<int>(d.n);
    const int uplo = d.lower ? kFillLower : kFillUpper;
    const std::string where = " for " + solverText(d);
    int lwork = 0;
    JFT_RETURN_IF_ERROR(
        solver_->check(solver_->potrf_buffer_size[t](
                           solver_handle_, uplo, n, devicePointer(buffers[1]), n, &lwork),
                       "cusolverDnXpotrf_bufferSize" + where));
    const uint64_t elementBytes = elementBytesOf(d);
    JFT_ASSIGN_OR_RETURN(uint64_t work, elementWorkspace(d, lwork));
    const uint64_t stride = static_cast<uint64_t>(d.n * d.n) * elementBytes;
    return eachItem(d, [&](uint64_t item) {
      return solver_->check(
          solver_->potrf[t](solver_handle_, uplo, n,
                            devicePointer(buffers[1] + item * stride), n,
                            devicePointer(work), lwork,
                            static_cast<int*>(devicePointer(buffers[2])) + item),
          "cusolverDnXpotrf" + where);
    });
  }

  // buffers: a, lu, pivots, info.
  Status getrf(const SolverDesc& d, const std::vector<uint64_t>& buffers,
               const std::vector<uint64_t>& bytes) {
    JFT_ASSIGN_OR_RETURN(bool busy,
                         start(d, buffers, bytes, {0, 1, 3}, d.m == 0 || d.n == 0));
    if (!busy) return Status::ok();
    const int t = solverTypeIndex(d.type);
    const int m = static_cast<int>(d.m), n = static_cast<int>(d.n);
    const std::string where = " for " + solverText(d);
    int lwork = 0;
    JFT_RETURN_IF_ERROR(
        solver_->check(solver_->getrf_buffer_size[t](
                           solver_handle_, m, n, devicePointer(buffers[1]), m, &lwork),
                       "cusolverDnXgetrf_bufferSize" + where));
    const uint64_t elementBytes = elementBytesOf(d);
    JFT_ASSIGN_OR_RETURN(uint64_t work, elementWorkspace(d, lwork));
    const uint64_t stride = static_cast<uint64_t>(d.m * d.n) * elementBytes;
    const int64_t pivots = std::min(d.m, d.n);
    return eachItem(d, [&](uint64_t item) {
      return solver_->check(
          solver_->getrf[t](solver_handle_, m, n,
                            devicePointer(buffers[1] + item * stride), m,
                            devicePointer(work),
                            static_cast<int*>(devicePointer(buffers[2])) +
                                item * static_cast<uint64_t>(pivots),
                            static_cast<int*>(devicePointer(buffers[3])) + item),
          "cusolverDnXgetrf" + where);
    });
  }

  // The library workspace for `lwork` elements of d's type, then one int
  // for an info the description has no buffer for (geqrf, orgqr: cuSOLVER
  // reports only invalid arguments there, which validation rules out).
  StatusOr<std::pair<uint64_t, uint64_t>> workAndInfo(const SolverDesc& d, int lwork) {
    const uint64_t workBytes =
        (static_cast<uint64_t>(lwork) * elementBytesOf(d) + 255) / 256 * 256;
    JFT_ASSIGN_OR_RETURN(uint64_t work, workspace(workBytes + 256));
    return std::pair{work, work + workBytes};
  }

  // buffers: a, qr, tau.
  Status geqrf(const SolverDesc& d, const std::vector<uint64_t>& buffers,
               const std::vector<uint64_t>& bytes) {
    JFT_ASSIGN_OR_RETURN(bool busy,
                         start(d, buffers, bytes, {0, 1, -1}, d.m == 0 || d.n == 0));
    if (!busy) return Status::ok();
    const int t = solverTypeIndex(d.type);
    const int m = static_cast<int>(d.m), n = static_cast<int>(d.n);
    const std::string where = " for " + solverText(d);
    int lwork = 0;
    JFT_RETURN_IF_ERROR(
        solver_->check(solver_->geqrf_buffer_size[t](
                           solver_handle_, m, n, devicePointer(buffers[1]), m, &lwork),
                       "cusolverDnXgeqrf_bufferSize" + where));
    JFT_ASSIGN_OR_RETURN(auto work, workAndInfo(d, lwork));
    const uint64_t elementBytes = elementBytesOf(d);
    const uint64_t stride = static_cast<uint64_t>(d.m * d.n) * elementBytes;
    const uint64_t tauStride = static_cast<uint64_t>(std::min(d.m, d.n)) * elementBytes;
    return eachItem(d, [&](uint64_t item) {
      return solver_->check(
          solver_->geqrf[t](
              solver_handle_, m, n, devicePointer(buffers[1] + item * stride), m,
              devicePointer(buffers[2] + item * tauStride), devicePointer(work.first),
              lwork, static_cast<int*>(devicePointer(work.second))),
          "cusolverDnXgeqrf" + where);
    });
  }

  // buffers: a, tau, q.
  Status orgqr(const SolverDesc& d, const std::vector<uint64_t>& buffers,
               const std::vector<uint64_t>& bytes) {
    JFT_ASSIGN_OR_RETURN(bool busy,
                         start(d, buffers, bytes, {0, 2, -1}, d.m == 0 || d.n == 0));
    if (!busy) return Status::ok();
    const int t = solverTypeIndex(d.type);
    const int m = static_cast<int>(d.m), n = static_cast<int>(d.n),
              k = static_cast<int>(d.k);
    const std::string where = " for " + solverText(d);
    int lwork = 0;
    JFT_RETURN_IF_ERROR(solver_->check(
        solver_->orgqr_buffer_size[t](solver_handle_, m, n, k, devicePointer(buffers[2]),
                                      m, devicePointer(buffers[1]), &lwork),
        "cusolverDnXorgqr_bufferSize" + where));
    JFT_ASSIGN_OR_RETURN(auto work, workAndInfo(d, lwork));
    const uint64_t elementBytes = elementBytesOf(d);
    const uint64_t stride = static_cast<uint64_t>(d.m * d.n) * elementBytes;
    const uint64_t tauStride = static_cast<uint64_t>(d.k) * elementBytes;
    return eachItem(d, [&](uint64_t item) {
      return solver_->check(
          solver_->orgqr[t](
              solver_handle_, m, n, k, devicePointer(buffers[2] + item * stride), m,
              devicePointer(buffers[1] + item * tauStride), devicePointer(work.first),
              lwork, static_cast<int*>(devicePointer(work.second))),
          "cusolverDnXorgqr" + where);
    });
  }

  // The 64-bit API's options object, made once (library defaults).
  Status ensureParams() {
    if (params_ != nullptr) return Status::ok();
    return solver_->check(solver_->createParams(&params_), "cusolverDnCreateParams");
  }

  // The Jacobi routines' parameter objects, made once (host objects holding
  // the default tolerance, sweep limit and sorting).
  Status ensureJacobiParams() {
    if (syevj_params_ == nullptr)
      JFT_RETURN_IF_ERROR(solver_->check(solver_->createSyevjInfo(&syevj_params_),
                                         "cusolverDnCreateSyevjInfo"));
    if (gesvdj_params_ == nullptr)
      JFT_RETURN_IF_ERROR(solver_->check(solver_->createGesvdjInfo(&gesvdj_params_),
                                         "cusolverDnCreateGesvdjInfo"));
    return Status::ok();
  }

  // buffers: a, v, w, info. As JAX's handler: Jacobi sweeps (syevj, one
  // batched call for a batch of matrices up to 32 x 32) when asked for, or
  // by default up to 32 x 32; divide and conquer (syevd) item by item else.
  Status syevd(const SolverDesc& d, const std::vector<uint64_t>& buffers,
               const std::vector<uint64_t>& bytes) {
    JFT_ASSIGN_OR_RETURN(bool busy, start(d, buffers, bytes, {0, 1, 3}, d.n == 0));
    if (!busy) return Status::ok();
    JFT_RETURN_IF_ERROR(ensureJacobiParams());
    const int t = solverTypeIndex(d.type);
    const int n = static_cast<int>(d.n);
    const int uplo = d.lower ? kFillLower : kFillUpper;
    const std::string where = " for " + solverText(d);
    const uint64_t elementBytes = elementBytesOf(d);
    const uint64_t stride = static_cast<uint64_t>(d.n * d.n) * elementBytes;
    const uint64_t wStride =
        static_cast<uint64_t>(d.n * solverTypeBytes(solverRealType(d.type)));
    void* v = devicePointer(buffers[1]);
    void* w = devicePointer(buffers[2]);
    int* info = static_cast<int*>(devicePointer(buffers[3]));
    const bool jacobi = d.algorithm == EigAlgorithm::kJacobi ||
                        (d.algorithm == EigAlgorithm::kDefault && d.n <= 32);
    int lwork = 0;
    if (jacobi && d.n <= 32 && d.batch > 1 && d.batch <= kMaxBatch) {
      const int batch = static_cast<int>(d.batch);
      JFT_RETURN_IF_ERROR(solver_->check(
          solver_->syevj_batched_buffer_size[t](solver_handle_, kEigModeVector, uplo, n,
                                                v, n, w, &lwork, syevj_params_, batch),
          "cusolverDnXsyevjBatched_bufferSize" + where));
      JFT_ASSIGN_OR_RETURN(uint64_t work, elementWorkspace(d, lwork));
      return solver_->check(solver_->syevj_batched[t](
                                solver_handle_, kEigModeVector, uplo, n, v, n, w,
                                devicePointer(work), lwork, info, syevj_params_, batch),
                            "cusolverDnXsyevjBatched" + where);
    }
    if (jacobi) {
      JFT_RETURN_IF_ERROR(solver_->check(
          solver_->syevj_buffer_size[t](solver_handle_, kEigModeVector, uplo, n, v, n, w,
                                        &lwork, syevj_params_),
          "cusolverDnXsyevj_bufferSize" + where));
    } else {
      JFT_RETURN_IF_ERROR(
          solver_->check(solver_->syevd_buffer_size[t](solver_handle_, kEigModeVector,
                                                       uplo, n, v, n, w, &lwork),
                         "cusolverDnXsyevd_bufferSize" + where));
    }
    JFT_ASSIGN_OR_RETURN(uint64_t work, elementWorkspace(d, lwork));
    return eachItem(d, [&](uint64_t item) {
      void* vi = devicePointer(buffers[1] + item * stride);
      void* wi = devicePointer(buffers[2] + item * wStride);
      const cusolverStatus_t status =
          jacobi
              ? solver_->syevj[t](solver_handle_, kEigModeVector, uplo, n, vi, n, wi,
                                  devicePointer(work), lwork, info + item, syevj_params_)
              : solver_->syevd[t](solver_handle_, kEigModeVector, uplo, n, vi, n, wi,
                                  devicePointer(work), lwork, info + item);
      return solver_->check(
          status, std::string(jacobi ? "cusolverDnXsyevj" : "cusolverDnXsyevd") + where);
    });
  }

  // buffers: a, work, s, u, v, info. As JAX's handler: one gesvdj_batched
  // call for a batch of matrices up to 32 x 32 with full U and V, gesvdj
  // item by item else. The library destroys `work` (its copy of a).
  Status gesvdj(const SolverDesc& d, const std::vector<uint64_t>& buffers,
                const std::vector<uint64_t>& bytes) {
    JFT_ASSIGN_OR_RETURN(bool busy,
                         start(d, buffers, bytes, {0, 1, 5}, d.m == 0 || d.n == 0));
    if (!busy) return Status::ok();
    JFT_RETURN_IF_ERROR(ensureJacobiParams());
    const int t = solverTypeIndex(d.type);
    const int m = static_cast<int>(d.m), n = static_cast<int>(d.n);
    const int jobz = d.compute_uv ? kEigModeVector : kEigModeNoVector;
    const std::string where = " for " + solverText(d);
    int* info = static_cast<int*>(devicePointer(buffers[5]));
    int lwork = 0;
    if (d.full_matrices && d.m <= 32 && d.n <= 32 && d.batch > 1 &&
        d.batch <= kMaxBatch) {
      const int batch = static_cast<int>(d.batch);
      JFT_RETURN_IF_ERROR(
          solver_->check(solver_->gesvdj_batched_buffer_size[t](
                             solver_handle_, jobz, m, n, devicePointer(buffers[1]), m,
                             devicePointer(buffers[2]), devicePointer(buffers[3]), m,
                             devicePointer(buffers[4]), n, &lwork, gesvdj_params_, batch),
                         "cusolverDnXgesvdjBatched_bufferSize" + where));
      JFT_ASSIGN_OR_RETURN(uint64_t work, elementWorkspace(d, lwork));
      return solver_->check(solver_->gesvdj_batched[t](
                                solver_handle_, jobz, m, n, devicePointer(buffers[1]), m,
                                devicePointer(buffers[2]), devicePointer(buffers[3]), m,
                                devicePointer(buffers[4]), n, devicePointer(work), lwork,
                                info, gesvdj_params_, batch),
                            "cusolverDnXgesvdjBatched" + where);
    }
    const int econ = d.full_matrices ? 0 : 1;
    JFT_RETURN_IF_ERROR(
        solver_->check(solver_->gesvdj_buffer_size[t](
                           solver_handle_, jobz, econ, m, n, devicePointer(buffers[1]), m,
                           devicePointer(buffers[2]), devicePointer(buffers[3]), m,
                           devicePointer(buffers[4]), n, &lwork, gesvdj_params_),
                       "cusolverDnXgesvdj_bufferSize" + where));
    JFT_ASSIGN_OR_RETURN(uint64_t work, elementWorkspace(d, lwork));
    const auto [aStride, sStride, uStride, vStride] = svdStrides(d);
    return eachItem(d, [&](uint64_t item) {
      return solver_->check(
          solver_->gesvdj[t](solver_handle_, jobz, econ, m, n,
                             devicePointer(buffers[1] + item * aStride), m,
                             devicePointer(buffers[2] + item * sStride),
                             devicePointer(buffers[3] + item * uStride), m,
                             devicePointer(buffers[4] + item * vStride), n,
                             devicePointer(work), lwork, info + item, gesvdj_params_),
          "cusolverDnXgesvdj" + where);
    });
  }

  // buffers: a, out, s, u, vt, info; item by item (the library has no
  // batched gesvd), as JAX's handler. jobu = jobvt: 'A' full, 'S' economy
  // (U m x n; V^H is n x n either way), 'N' without compute_uv, when u and
  // vt are one-element scalars the library never touches. The 32-bit API,
  // as every other kind here: validateSolver keeps sizes within int, and it
  // needs no options object or host workspace. The library destroys `out`.
  Status gesvd(const SolverDesc& d, const std::vector<uint64_t>& buffers,
               const std::vector<uint64_t>& bytes) {
    JFT_ASSIGN_OR_RETURN(bool busy,
                         start(d, buffers, bytes, {0, 1, 5}, d.m == 0 || d.n == 0));
    if (!busy) return Status::ok();
    const int t = solverTypeIndex(d.type);
    const int m = static_cast<int>(d.m), n = static_cast<int>(d.n);
    const signed char job = !d.compute_uv ? 'N' : d.full_matrices ? 'A' : 'S';
    const std::string where = " for " + solverText(d);
    int lwork = 0;
    JFT_RETURN_IF_ERROR(
        solver_->check(solver_->gesvd_buffer_size[t](solver_handle_, m, n, &lwork),
                       "cusolverDnXgesvd_bufferSize" + where));
    const uint64_t elementBytes = elementBytesOf(d);
    JFT_ASSIGN_OR_RETURN(uint64_t work, elementWorkspace(d, lwork));
    const uint64_t aStride = static_cast<uint64_t>(d.m * d.n) * elementBytes;
    const uint64_t sStride =
        static_cast<uint64_t>(d.n * solverTypeBytes(solverRealType(d.type)));
    const uint64_t uStride =
        d.compute_uv
            ? static_cast<uint64_t>(d.m * (d.full_matrices ? d.m : d.n)) * elementBytes
            : 0;
    const uint64_t vtStride =
        d.compute_uv ? static_cast<uint64_t>(d.n * d.n) * elementBytes : 0;
    int* info = static_cast<int*>(devicePointer(buffers[5]));
    return eachItem(d, [&](uint64_t item) {
      return solver_->check(
          solver_->gesvd[t](
              solver_handle_, job, job, m, n, devicePointer(buffers[1] + item * aStride),
              m, devicePointer(buffers[2] + item * sStride),
              devicePointer(buffers[3] + item * uStride), m,
              devicePointer(buffers[4] + item * vtStride), n, devicePointer(work), lwork,
              /*rwork=*/nullptr, info + item),
          "cusolverDnXgesvd" + where);
    });
  }

  // buffers: a, work, s, u, v, info; item by item, as JAX's handler.
  // gesvdp exists only in the 64-bit API: sizes in int64, data types as
  // cudaDataType_t (computing in the matrix's own type), a device and a
  // host workspace in bytes, and an options object made once per runner.
  // The host workspace and the error estimate (h_err_sigma, a host double
  // JAX ignores too) are done with when the call returns, as JAX's handler
  // assumes (it frees its own host workspace then).
  Status gesvdp(const SolverDesc& d, const std::vector<uint64_t>& buffers,
                const std::vector<uint64_t>& bytes) {
    JFT_ASSIGN_OR_RETURN(bool busy,
                         start(d, buffers, bytes, {0, 1, 5}, d.m == 0 || d.n == 0));
    if (!busy) return Status::ok();
    JFT_RETURN_IF_ERROR(ensureParams());
    const int type = solverDataType(d.type);
    const int real = solverDataType(solverRealType(d.type));
    const int jobz = d.compute_uv ? kEigModeVector : kEigModeNoVector;
    const int econ = d.full_matrices ? 0 : 1;
    const std::string where = " for " + solverText(d);
    size_t deviceBytes = 0, hostBytes = 0;
    JFT_RETURN_IF_ERROR(solver_->check(
        solver_->gesvdpBufferSize(
            solver_handle_, params_, jobz, econ, d.m, d.n, type,
            devicePointer(buffers[1]), d.m, real, devicePointer(buffers[2]), type,
            devicePointer(buffers[3]), d.m, type, devicePointer(buffers[4]), d.n, type,
            &deviceBytes, &hostBytes),
        "cusolverDnXgesvdp_bufferSize" + where));
    JFT_ASSIGN_OR_RETURN(uint64_t work, workspace(deviceBytes));
    if (host_work_.size() < hostBytes) host_work_.resize(hostBytes);
    const auto [aStride, sStride, uStride, vStride] = svdStrides(d);
    int* info = static_cast<int*>(devicePointer(buffers[5]));
    return eachItem(d, [&](uint64_t item) {
      double errorEstimate = 0;
      return solver_->check(
          solver_->gesvdp(solver_handle_, params_, jobz, econ, d.m, d.n, type,
                          devicePointer(buffers[1] + item * aStride), d.m, real,
                          devicePointer(buffers[2] + item * sStride), type,
                          devicePointer(buffers[3] + item * uStride), d.m, type,
                          devicePointer(buffers[4] + item * vStride), d.n, type,
                          devicePointer(work), deviceBytes,
                          host_work_.empty() ? nullptr : host_work_.data(), hostBytes,
                          info + item, &errorEstimate),
          "cusolverDnXgesvdp" + where);
    });
  }

  // buffers: a, out, w, vl, vr, info; item by item, as JAX's handler, in
  // the 64-bit API (Xgeev has no other form): w complex for every type (for
  // a real a the library still computes in real arithmetic and stores each
  // conjugate pair as two complex values), computing in a's type; vl is
  // never written (no left eigenvectors), vr only with `eigenvectors`. The
  // host workspace is done with when the call returns, as JAX's handler
  // assumes.
  Status geev(const SolverDesc& d, const std::vector<uint64_t>& buffers,
              const std::vector<uint64_t>& bytes) {
    JFT_ASSIGN_OR_RETURN(bool busy, start(d, buffers, bytes, {0, 1, 5}, d.n == 0));
    if (!busy) return Status::ok();
    if (solver_->geev == nullptr || solver_->geev_buffer_size == nullptr)
      return unimplemented(solverText(d) + ": " + solver_->library_name +
                           " has no cusolverDnXgeev (it needs cuSOLVER 11.7.1, from "
                           "CUDA 12.6 update 2, or newer)");
    JFT_RETURN_IF_ERROR(ensureParams());
    const bool complex = d.type == SolverType::kC64 || d.type == SolverType::kC128;
    const int type = solverDataType(d.type);
    const int wType = solverDataType(complex                      ? d.type
                                     : d.type == SolverType::kF64 ? SolverType::kC128
                                                                  : SolverType::kC64);
    const int jobvr = d.eigenvectors ? kEigModeVector : kEigModeNoVector;
    const std::string where = " for " + solverText(d);
    size_t deviceBytes = 0, hostBytes = 0;
    JFT_RETURN_IF_ERROR(solver_->check(
        solver_->geev_buffer_size(
            solver_handle_, params_, kEigModeNoVector, jobvr, d.n, type,
            devicePointer(buffers[1]), d.n, wType, devicePointer(buffers[2]), type,
            devicePointer(buffers[3]), d.n, type, devicePointer(buffers[4]), d.n, type,
            &deviceBytes, &hostBytes),
        "cusolverDnXgeev_bufferSize" + where));
    JFT_ASSIGN_OR_RETURN(uint64_t work, workspace(deviceBytes));
    if (host_work_.size() < hostBytes) host_work_.resize(hostBytes);
    const uint64_t matrixStride = bytes[1] / static_cast<uint64_t>(d.batch);
    const uint64_t wStride = bytes[2] / static_cast<uint64_t>(d.batch);
    int* info = static_cast<int*>(devicePointer(buffers[5]));
    return eachItem(d, [&](uint64_t item) {
      return solver_->check(
          solver_->geev(
              solver_handle_, params_, kEigModeNoVector, jobvr, d.n, type,
              devicePointer(buffers[1] + item * matrixStride), d.n, wType,
              devicePointer(buffers[2] + item * wStride), type, devicePointer(buffers[3]),
              d.n, type, devicePointer(buffers[4] + item * matrixStride), d.n, type,
              devicePointer(work), deviceBytes,
              host_work_.empty() ? nullptr : host_work_.data(), hostBytes, info + item),
          "cusolverDnXgeev" + where);
    });
  }

  // buffers: a, tau, c, out; item by item (JAX's handler has a kernel of
  // its own for batches of small matrices; the library's routine computes
  // the same product). trans N, or T (real) / C (complex) for `transpose`.
  Status ormqr(const SolverDesc& d, const std::vector<uint64_t>& buffers,
               const std::vector<uint64_t>& bytes) {
    // No reflectors: Q is the identity and the copy is the product.
    JFT_ASSIGN_OR_RETURN(bool busy, start(d, buffers, bytes, {2, 3, -1},
                                          d.m == 0 || d.n == 0 || d.k == 0));
    if (!busy) return Status::ok();
    const int t = solverTypeIndex(d.type);
    const bool complex = d.type == SolverType::kC64 || d.type == SolverType::kC128;
    const int side = d.left_side ? kSideLeft : kSideRight;
    const int trans = d.transpose == SolverTranspose::kNone ? kOpN
                      : complex                             ? kOpC
                                                            : kOpT;
    const int m = static_cast<int>(d.m), n = static_cast<int>(d.n),
              k = static_cast<int>(d.k);
    const int order = d.left_side ? m : n;
    const std::string where = " for " + solverText(d);
    int lwork = 0;
    JFT_RETURN_IF_ERROR(solver_->check(
        solver_->ormqr_buffer_size[t](
            solver_handle_, side, trans, m, n, k, devicePointer(buffers[0]), order,
            devicePointer(buffers[1]), devicePointer(buffers[3]), m, &lwork),
        "cusolverDnXormqr_bufferSize" + where));
    JFT_ASSIGN_OR_RETURN(auto work, workAndInfo(d, lwork));
    const uint64_t elementBytes = elementBytesOf(d);
    const uint64_t aStride =
        static_cast<uint64_t>(order * d.reflector_cols) * elementBytes;
    const uint64_t tauStride = static_cast<uint64_t>(d.k) * elementBytes;
    const uint64_t cStride = static_cast<uint64_t>(d.m * d.n) * elementBytes;
    return eachItem(d, [&](uint64_t item) {
      return solver_->check(
          solver_->ormqr[t](solver_handle_, side, trans, m, n, k,
                            devicePointer(buffers[0] + item * aStride), order,
                            devicePointer(buffers[1] + item * tauStride),
                            devicePointer(buffers[3] + item * cStride), m,
                            devicePointer(work.first), lwork,
                            static_cast<int*>(devicePointer(work.second))),
          "cusolverDnXormqr" + where);
    });
  }

  // buffers: a, out, d, e, tau, info; item by item, as JAX's handler.
  Status sytrd(const SolverDesc& d, const std::vector<uint64_t>& buffers,
               const std::vector<uint64_t>& bytes) {
    JFT_ASSIGN_OR_RETURN(bool busy, start(d, buffers, bytes, {0, 1, 5}, d.n == 0));
    if (!busy) return Status::ok();
    const int t = solverTypeIndex(d.type);
    const int n = static_cast<int>(d.n);
    const int uplo = d.lower ? kFillLower : kFillUpper;
    const std::string where = " for " + solverText(d);
    int lwork = 0;
    JFT_RETURN_IF_ERROR(solver_->check(
        solver_->sytrd_buffer_size[t](solver_handle_, uplo, n, devicePointer(buffers[1]),
                                      n, devicePointer(buffers[2]),
                                      devicePointer(buffers[3]),
                                      devicePointer(buffers[4]), &lwork),
        "cusolverDnXsytrd_bufferSize" + where));
    const uint64_t elementBytes = elementBytesOf(d);
    const uint64_t realBytes =
        static_cast<uint64_t>(solverTypeBytes(solverRealType(d.type)));
    JFT_ASSIGN_OR_RETURN(uint64_t work, elementWorkspace(d, lwork));
    const uint64_t size = static_cast<uint64_t>(d.n);
    return eachItem(d, [&](uint64_t item) {
      return solver_->check(
          solver_->sytrd[t](solver_handle_, uplo, n,
                            devicePointer(buffers[1] + item * size * size * elementBytes),
                            n, devicePointer(buffers[2] + item * size * realBytes),
                            devicePointer(buffers[3] + item * (size - 1) * realBytes),
                            devicePointer(buffers[4] + item * (size - 1) * elementBytes),
                            devicePointer(work), lwork,
                            static_cast<int*>(devicePointer(buffers[5])) + item),
          "cusolverDnXsytrd" + where);
    });
  }

  // buffers: a, b, x. alpha = 1 in the element type, read from the host.
  Status trsm(const SolverDesc& d, const std::vector<uint64_t>& buffers,
              const std::vector<uint64_t>& bytes) {
    JFT_RETURN_IF_ERROR(copyIn(buffers[1], buffers[2], bytes[2]));
    if (d.batch == 0 || d.m == 0 || d.n == 0) return Status::ok();
    JFT_RETURN_IF_ERROR(ensureBlas());
    const int t = solverTypeIndex(d.type);
    alignas(16) unsigned char one[16] = {};
    if (d.type == SolverType::kF32 || d.type == SolverType::kC64) {
      const float v = 1.0f;
      std::memcpy(one, &v, sizeof v);
    } else {
      const double v = 1.0;
      std::memcpy(one, &v, sizeof v);
    }
    const int m = static_cast<int>(d.m), n = static_cast<int>(d.n);
    const int k = d.left_side ? m : n;
    const int op = d.transpose == SolverTranspose::kNone        ? kOpN
                   : d.transpose == SolverTranspose::kTranspose ? kOpT
                                                                : kOpC;
    const uint64_t elementBytes = elementBytesOf(d);
    const uint64_t aStride =
        static_cast<uint64_t>(k) * static_cast<uint64_t>(k) * elementBytes;
    const uint64_t xStride = static_cast<uint64_t>(d.m * d.n) * elementBytes;
    return eachItem(d, [&](uint64_t item) {
      return blas_->check(
          blas_->trsm[t](blas_handle_, d.left_side ? kSideLeft : kSideRight,
                         d.lower ? kFillLower : kFillUpper, op,
                         d.unit_diagonal ? kDiagUnit : kDiagNonUnit, m, n, one,
                         devicePointer(buffers[0] + item * aStride), k,
                         devicePointer(buffers[2] + item * xStride), m),
          "cublasXtrsm for " + solverText(d));
    });
  }

  // The runner's pinned buffer, at least `need` bytes (reused by later
  // calls only behind this one's copies: one stream).
  StatusOr<unsigned char*> pinned(uint64_t need) {
    if (need > pinned_bytes_) {
      if (pinned_ != nullptr) device_.deallocatePinned(pinned_);
      pinned_ = nullptr;
      pinned_bytes_ = 0;
      JFT_ASSIGN_OR_RETURN(pinned_, device_.allocatePinned(need));
      pinned_bytes_ = need;
    }
    return static_cast<unsigned char*>(pinned_);
  }

  // Copies and host work queued on the stream, behind the work before them.
  Status toHost(void* host, uint64_t from, uint64_t bytes) {
    return driver_.check(driver_.memcpyDtoHAsync(host, static_cast<CUdeviceptr>(from),
                                                 bytes, device_.stream()),
                         "cuMemcpyDtoHAsync");
  }
  Status toDevice(uint64_t to, const void* host, uint64_t bytes) {
    return driver_.check(driver_.memcpyHtoDAsync(static_cast<CUdeviceptr>(to), host,
                                                 bytes, device_.stream()),
                         "cuMemcpyHtoDAsync");
  }
  Status launchHost(CUhostFn function, void* data) {
    return driver_.check(driver_.launchHostFunc(device_.stream(), function, data),
                         "cuLaunchHostFunc");
  }

  // buffers: r, w, r_out, w_out. As the permutation: both go to pinned
  // memory, a host function updates them there (O(n^2) per item, as JAX's
  // one-thread-block kernel), and they are copied to the outputs, all in
  // stream order.
  Status choleskyUpdate(const SolverDesc& d, const std::vector<uint64_t>& buffers,
                        const std::vector<uint64_t>& bytes) {
    if (bytes[0] == 0) return Status::ok();
    JFT_ASSIGN_OR_RETURN(unsigned char* host, pinned(bytes[0] + bytes[1]));
    JFT_RETURN_IF_ERROR(toHost(host, buffers[0], bytes[0]));
    JFT_RETURN_IF_ERROR(toHost(host + bytes[0], buffers[1], bytes[1]));
    auto job = std::make_unique<CholeskyUpdateJob>();
    job->r = host;
    job->w = host + bytes[0];
    job->type = d.type;
    job->batch = d.batch;
    job->n = d.n;
    JFT_RETURN_IF_ERROR(launchHost(runCholeskyUpdateJob, job.get()));
    job.release();  // the host function owns it now
    JFT_RETURN_IF_ERROR(toDevice(buffers[2], host, bytes[2]));
    return toDevice(buffers[3], host + bytes[0], bytes[3]);
  }

  // buffers: pivots, permutation. Pivots go to pinned memory, a host
  // function computes the permutation there, and it is copied back, all in
  // stream order; the pinned buffer is reused by the next call only after
  // this one's copies (same stream).
  Status permutation(const SolverDesc& d, const std::vector<uint64_t>& buffers,
                     const std::vector<uint64_t>& bytes) {
    if (bytes[1] == 0) return Status::ok();
    JFT_ASSIGN_OR_RETURN(unsigned char* host, pinned(bytes[0] + bytes[1]));
    if (bytes[0] != 0) JFT_RETURN_IF_ERROR(toHost(host, buffers[0], bytes[0]));
    auto job = std::make_unique<PermutationJob>();
    job->pivots = reinterpret_cast<const int32_t*>(host);
    job->permutation = reinterpret_cast<int32_t*>(host + bytes[0]);
    job->batch = d.batch;
    job->n = d.n;
    job->m = d.m;
    JFT_RETURN_IF_ERROR(launchHost(runPermutationJob, job.get()));
    job.release();  // the host function owns it now
    return toDevice(buffers[1], host + bytes[0], bytes[1]);
  }

  CudaDevice& device_;
  const Driver& driver_;
  std::mutex mutex_;  // one description at a time: handles and buffers are shared
  const CusolverLibrary* solver_ = nullptr;
  cusolverDnHandle_t solver_handle_ = nullptr;
  const CublasLibrary* blas_ = nullptr;
  cublasHandle_t blas_handle_ = nullptr;
  syevjInfo_t syevj_params_ = nullptr;
  gesvdjInfo_t gesvdj_params_ = nullptr;
  cusolverDnParams_t params_ = nullptr;   // the 64-bit API's (gesvdp, geev)
  std::vector<unsigned char> host_work_;  // its host workspace
  uint64_t workspace_ = 0, workspace_bytes_ = 0;
  void* pinned_ = nullptr;
  uint64_t pinned_bytes_ = 0;
};

}  // namespace

StatusOr<std::unique_ptr<SolverRunner>> SolverRunner::create(CudaDevice& device) {
  JFT_ASSIGN_OR_RETURN(const Driver* driver, Driver::load());
  return std::unique_ptr<SolverRunner>(new CudaSolverRunner(device, *driver));
}

}  // namespace jft::runtime::gpu
