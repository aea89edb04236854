// The solver runner: each SolverDesc kind as library calls on the device's
// stream. Descriptions are column-major already (the compiler mapped our
// row-major values onto them), so nothing here swaps or transposes.
#include "runtime/gpu/cusolver.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <optional>
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
    if (device_.makeCurrent().isOk()) {
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
    JFT_RETURN_IF_ERROR(device_.makeCurrent());
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

  // What a cuSOLVER routine passes for d: the index of its per-type entry
  // points and the sizes as the 32-bit API's ints (validateSolver keeps
  // them in range).
  struct Routine {
    int t, m, n, k;
  };

  // Every cuSOLVER routine's start: the in-place copy; then an empty batch is
  // done, and so are empty matrices once their info is zeroed. Nothing when
  // nothing is left to do; else the solver is ready.
  StatusOr<std::optional<Routine>> start(const SolverDesc& d,
                                         const std::vector<uint64_t>& buffers,
                                         const std::vector<uint64_t>& bytes, InPlace io,
                                         bool empty) {
    JFT_RETURN_IF_ERROR(copyIn(buffers[io.from], buffers[io.to], bytes[io.to]));
    if (d.batch == 0) return std::optional<Routine>();
    if (empty) {
      if (io.info >= 0)
        JFT_RETURN_IF_ERROR(device_.fill(buffers[io.info], 0, bytes[io.info]));
      return std::optional<Routine>();
    }
    JFT_RETURN_IF_ERROR(ensureSolver());
    return std::optional<Routine>(Routine{solverTypeIndex(d.type), static_cast<int>(d.m),
                                          static_cast<int>(d.n), static_cast<int>(d.k)});
  }

  // A library call's status; an error names routine `name` and d.
  Status checkCall(cusolverStatus_t status, const std::string& name,
                   const SolverDesc& d) const {
    return solver_->check(status, name + " for " + solverText(d));
  }

  // The workspace routine `name` asks for: `query(&lwork)` is its
  // _bufferSize call.
  template <typename Query>
  StatusOr<int> workSize(const SolverDesc& d, const char* name, Query&& query) {
    int lwork = 0;
    JFT_RETURN_IF_ERROR(checkCall(query(&lwork), std::string(name) + "_bufferSize", d));
    return lwork;
  }

  // `call(item)` for each item of the batch, each checked as routine `name`'s.
  template <typename Call>
  Status eachCall(const SolverDesc& d, const char* name, Call&& call) const {
    return eachItem(d, [&](uint64_t item) { return checkCall(call(item), name, d); });
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

  // The shape of most routines: the workspace in elements of d's type that
  // `query(&lwork)` asks for, then `call(item, work, lwork)` item by item.
  template <typename Query, typename Call>
  Status withWorkEachItem(const SolverDesc& d, const char* name, Query&& query,
                          Call&& call) {
    JFT_ASSIGN_OR_RETURN(const int lwork, workSize(d, name, query));
    JFT_ASSIGN_OR_RETURN(uint64_t work, elementWorkspace(d, lwork));
    return eachCall(
        d, name, [&](uint64_t item) { return call(item, devicePointer(work), lwork); });
  }

  // The same for the routines whose description has no info buffer
  // (geqrf, orgqr, ormqr): `call(item, work, lwork, info)` with an info
  // behind the workspace.
  template <typename Query, typename Call>
  Status withWorkAndInfoEachItem(const SolverDesc& d, const char* name, Query&& query,
                                 Call&& call) {
    JFT_ASSIGN_OR_RETURN(const int lwork, workSize(d, name, query));
    JFT_ASSIGN_OR_RETURN(auto work, workAndInfo(d, lwork));
    int* info = static_cast<int*>(devicePointer(work.second));
    return eachCall(d, name, [&](uint64_t item) {
      return call(item, devicePointer(work.first), lwork, info);
    });
  }

  // buffers: a, factor, info.
  Status potrf(const SolverDesc& d, const std::vector<uint64_t>& buffers,
               const std::vector<uint64_t>& bytes) {
    JFT_ASSIGN_OR_RETURN(auto r, start(d, buffers, bytes, {0, 1, 2}, d.n == 0));
    if (!r) return Status::ok();
    const int uplo = d.lower ? kFillLower : kFillUpper;
    const uint64_t stride = static_cast<uint64_t>(d.n * d.n) * elementBytesOf(d);
    int* info = static_cast<int*>(devicePointer(buffers[2]));
    return withWorkEachItem(
        d, "cusolverDnXpotrf",
        [&](int* lwork) {
          return solver_->potrf_buffer_size[r->t](solver_handle_, uplo, r->n,
                                                  devicePointer(buffers[1]), r->n, lwork);
        },
        [&](uint64_t item, void* work, int lwork) {
          return solver_->potrf[r->t](solver_handle_, uplo, r->n,
                                      devicePointer(buffers[1] + item * stride), r->n,
                                      work, lwork, info + item);
        });
  }

  // buffers: a, lu, pivots, info.
  Status getrf(const SolverDesc& d, const std::vector<uint64_t>& buffers,
               const std::vector<uint64_t>& bytes) {
    JFT_ASSIGN_OR_RETURN(auto r,
                         start(d, buffers, bytes, {0, 1, 3}, d.m == 0 || d.n == 0));
    if (!r) return Status::ok();
    const uint64_t stride = static_cast<uint64_t>(d.m * d.n) * elementBytesOf(d);
    const uint64_t pivots = static_cast<uint64_t>(std::min(d.m, d.n));
    return withWorkEachItem(
        d, "cusolverDnXgetrf",
        [&](int* lwork) {
          return solver_->getrf_buffer_size[r->t](solver_handle_, r->m, r->n,
                                                  devicePointer(buffers[1]), r->m, lwork);
        },
        [&](uint64_t item, void* work, int) {
          return solver_->getrf[r->t](
              solver_handle_, r->m, r->n, devicePointer(buffers[1] + item * stride), r->m,
              work, static_cast<int*>(devicePointer(buffers[2])) + item * pivots,
              static_cast<int*>(devicePointer(buffers[3])) + item);
        });
  }

  // buffers: a, qr, tau.
  Status geqrf(const SolverDesc& d, const std::vector<uint64_t>& buffers,
               const std::vector<uint64_t>& bytes) {
    JFT_ASSIGN_OR_RETURN(auto r,
                         start(d, buffers, bytes, {0, 1, -1}, d.m == 0 || d.n == 0));
    if (!r) return Status::ok();
    const uint64_t elementBytes = elementBytesOf(d);
    const uint64_t stride = static_cast<uint64_t>(d.m * d.n) * elementBytes;
    const uint64_t tauStride = static_cast<uint64_t>(std::min(d.m, d.n)) * elementBytes;
    return withWorkAndInfoEachItem(
        d, "cusolverDnXgeqrf",
        [&](int* lwork) {
          return solver_->geqrf_buffer_size[r->t](solver_handle_, r->m, r->n,
                                                  devicePointer(buffers[1]), r->m, lwork);
        },
        [&](uint64_t item, void* work, int lwork, int* info) {
          return solver_->geqrf[r->t](
              solver_handle_, r->m, r->n, devicePointer(buffers[1] + item * stride), r->m,
              devicePointer(buffers[2] + item * tauStride), work, lwork, info);
        });
  }

  // buffers: a, tau, q.
  Status orgqr(const SolverDesc& d, const std::vector<uint64_t>& buffers,
               const std::vector<uint64_t>& bytes) {
    JFT_ASSIGN_OR_RETURN(auto r,
                         start(d, buffers, bytes, {0, 2, -1}, d.m == 0 || d.n == 0));
    if (!r) return Status::ok();
    const uint64_t elementBytes = elementBytesOf(d);
    const uint64_t stride = static_cast<uint64_t>(d.m * d.n) * elementBytes;
    const uint64_t tauStride = static_cast<uint64_t>(d.k) * elementBytes;
    return withWorkAndInfoEachItem(
        d, "cusolverDnXorgqr",
        [&](int* lwork) {
          return solver_->orgqr_buffer_size[r->t](solver_handle_, r->m, r->n, r->k,
                                                  devicePointer(buffers[2]), r->m,
                                                  devicePointer(buffers[1]), lwork);
        },
        [&](uint64_t item, void* work, int lwork, int* info) {
          return solver_->orgqr[r->t](
              solver_handle_, r->m, r->n, r->k, devicePointer(buffers[2] + item * stride),
              r->m, devicePointer(buffers[1] + item * tauStride), work, lwork, info);
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
    JFT_ASSIGN_OR_RETURN(auto r, start(d, buffers, bytes, {0, 1, 3}, d.n == 0));
    if (!r) return Status::ok();
    JFT_RETURN_IF_ERROR(ensureJacobiParams());
    const int t = r->t, n = r->n;
    const int uplo = d.lower ? kFillLower : kFillUpper;
    const uint64_t stride = static_cast<uint64_t>(d.n * d.n) * elementBytesOf(d);
    const uint64_t wStride =
        static_cast<uint64_t>(d.n * solverTypeBytes(solverRealType(d.type)));
    void* v = devicePointer(buffers[1]);
    void* w = devicePointer(buffers[2]);
    int* info = static_cast<int*>(devicePointer(buffers[3]));
    const bool jacobi = d.algorithm == EigAlgorithm::kJacobi ||
                        (d.algorithm == EigAlgorithm::kDefault && d.n <= 32);
    if (jacobi && d.n <= 32 && d.batch > 1 && d.batch <= kMaxBatch) {
      const int batch = static_cast<int>(d.batch);
      JFT_ASSIGN_OR_RETURN(
          const int lwork, workSize(d, "cusolverDnXsyevjBatched", [&](int* size) {
            return solver_->syevj_batched_buffer_size[t](solver_handle_, kEigModeVector,
                                                         uplo, n, v, n, w, size,
                                                         syevj_params_, batch);
          }));
      JFT_ASSIGN_OR_RETURN(uint64_t work, elementWorkspace(d, lwork));
      return checkCall(solver_->syevj_batched[t](solver_handle_, kEigModeVector, uplo, n,
                                                 v, n, w, devicePointer(work), lwork,
                                                 info, syevj_params_, batch),
                       "cusolverDnXsyevjBatched", d);
    }
    return withWorkEachItem(
        d, jacobi ? "cusolverDnXsyevj" : "cusolverDnXsyevd",
        [&](int* lwork) {
          return jacobi
                     ? solver_->syevj_buffer_size[t](solver_handle_, kEigModeVector, uplo,
                                                     n, v, n, w, lwork, syevj_params_)
                     : solver_->syevd_buffer_size[t](solver_handle_, kEigModeVector, uplo,
                                                     n, v, n, w, lwork);
        },
        [&](uint64_t item, void* work, int lwork) {
          void* vi = devicePointer(buffers[1] + item * stride);
          void* wi = devicePointer(buffers[2] + item * wStride);
          return jacobi
                     ? solver_->syevj[t](solver_handle_, kEigModeVector, uplo, n, vi, n,
                                         wi, work, lwork, info + item, syevj_params_)
                     : solver_->syevd[t](solver_handle_, kEigModeVector, uplo, n, vi, n,
                                         wi, work, lwork, info + item);
        });
  }

  // buffers: a, work, s, u, v, info. As JAX's handler: one gesvdj_batched
  // call for a batch of matrices up to 32 x 32 with full U and V, gesvdj
  // item by item else. The library destroys `work` (its copy of a).
  Status gesvdj(const SolverDesc& d, const std::vector<uint64_t>& buffers,
                const std::vector<uint64_t>& bytes) {
    JFT_ASSIGN_OR_RETURN(auto r,
                         start(d, buffers, bytes, {0, 1, 5}, d.m == 0 || d.n == 0));
    if (!r) return Status::ok();
    JFT_RETURN_IF_ERROR(ensureJacobiParams());
    const int t = r->t, m = r->m, n = r->n;
    const int jobz = d.compute_uv ? kEigModeVector : kEigModeNoVector;
    int* info = static_cast<int*>(devicePointer(buffers[5]));
    if (d.full_matrices && d.m <= 32 && d.n <= 32 && d.batch > 1 &&
        d.batch <= kMaxBatch) {
      const int batch = static_cast<int>(d.batch);
      JFT_ASSIGN_OR_RETURN(
          const int lwork, workSize(d, "cusolverDnXgesvdjBatched", [&](int* size) {
            return solver_->gesvdj_batched_buffer_size[t](
                solver_handle_, jobz, m, n, devicePointer(buffers[1]), m,
                devicePointer(buffers[2]), devicePointer(buffers[3]), m,
                devicePointer(buffers[4]), n, size, gesvdj_params_, batch);
          }));
      JFT_ASSIGN_OR_RETURN(uint64_t work, elementWorkspace(d, lwork));
      return checkCall(solver_->gesvdj_batched[t](
                           solver_handle_, jobz, m, n, devicePointer(buffers[1]), m,
                           devicePointer(buffers[2]), devicePointer(buffers[3]), m,
                           devicePointer(buffers[4]), n, devicePointer(work), lwork, info,
                           gesvdj_params_, batch),
                       "cusolverDnXgesvdjBatched", d);
    }
    const int econ = d.full_matrices ? 0 : 1;
    const auto [aStride, sStride, uStride, vStride] = svdStrides(d);
    return withWorkEachItem(
        d, "cusolverDnXgesvdj",
        [&](int* lwork) {
          return solver_->gesvdj_buffer_size[t](
              solver_handle_, jobz, econ, m, n, devicePointer(buffers[1]), m,
              devicePointer(buffers[2]), devicePointer(buffers[3]), m,
              devicePointer(buffers[4]), n, lwork, gesvdj_params_);
        },
        [&](uint64_t item, void* work, int lwork) {
          return solver_->gesvdj[t](solver_handle_, jobz, econ, m, n,
                                    devicePointer(buffers[1] + item * aStride), m,
                                    devicePointer(buffers[2] + item * sStride),
                                    devicePointer(buffers[3] + item * uStride), m,
                                    devicePointer(buffers[4] + item * vStride), n, work,
                                    lwork, info + item, gesvdj_params_);
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
    JFT_ASSIGN_OR_RETURN(auto r,
                         start(d, buffers, bytes, {0, 1, 5}, d.m == 0 || d.n == 0));
    if (!r) return Status::ok();
    const signed char job = !d.compute_uv ? 'N' : d.full_matrices ? 'A' : 'S';
    const uint64_t elementBytes = elementBytesOf(d);
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
    return withWorkEachItem(
        d, "cusolverDnXgesvd",
        [&](int* lwork) {
          return solver_->gesvd_buffer_size[r->t](solver_handle_, r->m, r->n, lwork);
        },
        [&](uint64_t item, void* work, int lwork) {
          return solver_->gesvd[r->t](solver_handle_, job, job, r->m, r->n,
                                      devicePointer(buffers[1] + item * aStride), r->m,
                                      devicePointer(buffers[2] + item * sStride),
                                      devicePointer(buffers[3] + item * uStride), r->m,
                                      devicePointer(buffers[4] + item * vtStride), r->n,
                                      work, lwork, /*rwork=*/nullptr, info + item);
        });
  }

  // The 64-bit API's workspaces, as routine `name`'s _bufferSize call
  // `query(&device_bytes, &host_bytes)` asks: the device one and the
  // runner's host one.
  struct Workspaces {
    void* device;
    size_t device_bytes;
    void* host;
    size_t host_bytes;
  };
  template <typename Query>
  StatusOr<Workspaces> workspaces(const SolverDesc& d, const char* name, Query&& query) {
    size_t deviceBytes = 0, hostBytes = 0;
    JFT_RETURN_IF_ERROR(
        checkCall(query(&deviceBytes, &hostBytes), std::string(name) + "_bufferSize", d));
    JFT_ASSIGN_OR_RETURN(uint64_t work, workspace(deviceBytes));
    if (host_work_.size() < hostBytes) host_work_.resize(hostBytes);
    return Workspaces{devicePointer(work), deviceBytes,
                      host_work_.empty() ? nullptr : host_work_.data(), hostBytes};
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
    JFT_ASSIGN_OR_RETURN(auto r,
                         start(d, buffers, bytes, {0, 1, 5}, d.m == 0 || d.n == 0));
    if (!r) return Status::ok();
    JFT_RETURN_IF_ERROR(ensureParams());
    const int type = solverDataType(d.type);
    const int real = solverDataType(solverRealType(d.type));
    const int jobz = d.compute_uv ? kEigModeVector : kEigModeNoVector;
    const int econ = d.full_matrices ? 0 : 1;
    JFT_ASSIGN_OR_RETURN(
        const Workspaces work,
        workspaces(d, "cusolverDnXgesvdp", [&](size_t* deviceBytes, size_t* hostBytes) {
          return solver_->gesvdpBufferSize(
              solver_handle_, params_, jobz, econ, d.m, d.n, type,
              devicePointer(buffers[1]), d.m, real, devicePointer(buffers[2]), type,
              devicePointer(buffers[3]), d.m, type, devicePointer(buffers[4]), d.n, type,
              deviceBytes, hostBytes);
        }));
    const auto [aStride, sStride, uStride, vStride] = svdStrides(d);
    int* info = static_cast<int*>(devicePointer(buffers[5]));
    return eachCall(d, "cusolverDnXgesvdp", [&](uint64_t item) {
      double errorEstimate = 0;
      return solver_->gesvdp(solver_handle_, params_, jobz, econ, d.m, d.n, type,
                             devicePointer(buffers[1] + item * aStride), d.m, real,
                             devicePointer(buffers[2] + item * sStride), type,
                             devicePointer(buffers[3] + item * uStride), d.m, type,
                             devicePointer(buffers[4] + item * vStride), d.n, type,
                             work.device, work.device_bytes, work.host, work.host_bytes,
                             info + item, &errorEstimate);
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
    JFT_ASSIGN_OR_RETURN(auto r, start(d, buffers, bytes, {0, 1, 5}, d.n == 0));
    if (!r) return Status::ok();
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
    JFT_ASSIGN_OR_RETURN(
        const Workspaces work,
        workspaces(d, "cusolverDnXgeev", [&](size_t* deviceBytes, size_t* hostBytes) {
          return solver_->geev_buffer_size(
              solver_handle_, params_, kEigModeNoVector, jobvr, d.n, type,
              devicePointer(buffers[1]), d.n, wType, devicePointer(buffers[2]), type,
              devicePointer(buffers[3]), d.n, type, devicePointer(buffers[4]), d.n, type,
              deviceBytes, hostBytes);
        }));
    const uint64_t matrixStride = bytes[1] / static_cast<uint64_t>(d.batch);
    const uint64_t wStride = bytes[2] / static_cast<uint64_t>(d.batch);
    int* info = static_cast<int*>(devicePointer(buffers[5]));
    return eachCall(d, "cusolverDnXgeev", [&](uint64_t item) {
      return solver_->geev(
          solver_handle_, params_, kEigModeNoVector, jobvr, d.n, type,
          devicePointer(buffers[1] + item * matrixStride), d.n, wType,
          devicePointer(buffers[2] + item * wStride), type, devicePointer(buffers[3]),
          d.n, type, devicePointer(buffers[4] + item * matrixStride), d.n, type,
          work.device, work.device_bytes, work.host, work.host_bytes, info + item);
    });
  }

  // buffers: a, tau, c, out; item by item (JAX's handler has a kernel of
  // its own for batches of small matrices; the library's routine computes
  // the same product). trans N, or T (real) / C (complex) for `transpose`.
  Status ormqr(const SolverDesc& d, const std::vector<uint64_t>& buffers,
               const std::vector<uint64_t>& bytes) {
    // No reflectors: Q is the identity and the copy is the product.
    JFT_ASSIGN_OR_RETURN(
        auto r, start(d, buffers, bytes, {2, 3, -1}, d.m == 0 || d.n == 0 || d.k == 0));
    if (!r) return Status::ok();
    const bool complex = d.type == SolverType::kC64 || d.type == SolverType::kC128;
    const int side = d.left_side ? kSideLeft : kSideRight;
    const int trans = d.transpose == SolverTranspose::kNone ? kOpN
                      : complex                             ? kOpC
                                                            : kOpT;
    const int t = r->t, m = r->m, n = r->n, k = r->k;
    const int order = d.left_side ? m : n;
    const uint64_t elementBytes = elementBytesOf(d);
    const uint64_t aStride =
        static_cast<uint64_t>(order * d.reflector_cols) * elementBytes;
    const uint64_t tauStride = static_cast<uint64_t>(d.k) * elementBytes;
    const uint64_t cStride = static_cast<uint64_t>(d.m * d.n) * elementBytes;
    return withWorkAndInfoEachItem(
        d, "cusolverDnXormqr",
        [&](int* lwork) {
          return solver_->ormqr_buffer_size[t](
              solver_handle_, side, trans, m, n, k, devicePointer(buffers[0]), order,
              devicePointer(buffers[1]), devicePointer(buffers[3]), m, lwork);
        },
        [&](uint64_t item, void* work, int lwork, int* info) {
          return solver_->ormqr[t](solver_handle_, side, trans, m, n, k,
                                   devicePointer(buffers[0] + item * aStride), order,
                                   devicePointer(buffers[1] + item * tauStride),
                                   devicePointer(buffers[3] + item * cStride), m, work,
                                   lwork, info);
        });
  }

  // buffers: a, out, d, e, tau, info; item by item, as JAX's handler.
  Status sytrd(const SolverDesc& d, const std::vector<uint64_t>& buffers,
               const std::vector<uint64_t>& bytes) {
    JFT_ASSIGN_OR_RETURN(auto r, start(d, buffers, bytes, {0, 1, 5}, d.n == 0));
    if (!r) return Status::ok();
    const int uplo = d.lower ? kFillLower : kFillUpper;
    const uint64_t elementBytes = elementBytesOf(d);
    const uint64_t realBytes =
        static_cast<uint64_t>(solverTypeBytes(solverRealType(d.type)));
    const uint64_t size = static_cast<uint64_t>(d.n);
    return withWorkEachItem(
        d, "cusolverDnXsytrd",
        [&](int* lwork) {
          return solver_->sytrd_buffer_size[r->t](
              solver_handle_, uplo, r->n, devicePointer(buffers[1]), r->n,
              devicePointer(buffers[2]), devicePointer(buffers[3]),
              devicePointer(buffers[4]), lwork);
        },
        [&](uint64_t item, void* work, int lwork) {
          return solver_->sytrd[r->t](
              solver_handle_, uplo, r->n,
              devicePointer(buffers[1] + item * size * size * elementBytes), r->n,
              devicePointer(buffers[2] + item * size * realBytes),
              devicePointer(buffers[3] + item * (size - 1) * realBytes),
              devicePointer(buffers[4] + item * (size - 1) * elementBytes), work, lwork,
              static_cast<int*>(devicePointer(buffers[5])) + item);
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
