// NCCL loading, communicators and the collective runner.
//
// How each kind maps onto NCCL (chunks are contiguous: the op's dimension is
// the outermost, runtime/collective.h):
//   all_reduce, all_gather, reduce_scatter: the calls of the same name
//     (all_gather's and reduce_scatter's counts are per rank, as NCCL's are).
//   collective_broadcast: ncclBroadcast from root 0.
//   all_to_all: for every peer j, send input chunk j to j and receive j's
//     chunk into output chunk j, all in one group.
//   collective_permute: send the input to this rank's target and receive the
//     output from its source, in one group; a rank that is nobody's target
//     has its output zeroed first.
#include "runtime/gpu/nccl.h"

#include <mutex>

#include "runtime/gpu/library_loader.h"
#include "support/enum_table.h"

namespace jft::runtime::gpu {
namespace {

std::string resolveNccl(void* handle, Nccl& library) {
  lookUpSymbol(handle, "ncclCommFinalize", library.comm_finalize);  // optional
  return "";
}

StatusOr<Nccl*> openNccl() {
  return openVendorLibrary<Nccl>("JFT_NCCL_LIBRARY", {"libnccl.so.2", "libnccl.so"},
                                 "NCCL", "the nvidia-nccl-cu12 or nvidia-nccl-cu13 wheel",
                                 resolveNccl);
}

// clang-format off
constexpr EnumName<ncclResult_t> kNcclResultNames[] = {
    {kNcclSuccess, "ncclSuccess"}, {kNcclUnhandledCudaError, "ncclUnhandledCudaError"},
    {kNcclSystemError, "ncclSystemError"}, {kNcclInternalError, "ncclInternalError"},
    {kNcclInvalidArgument, "ncclInvalidArgument"},
    {kNcclInvalidUsage, "ncclInvalidUsage"}, {kNcclRemoteError, "ncclRemoteError"},
    {kNcclInProgress, "ncclInProgress"}, {kNcclTimeout, "ncclTimeout"},
};
// clang-format on

const char* ncclResultName(ncclResult_t result) {
  return nameOf(kNcclResultNames, result, "NCCL error");
}

std::string rankText(const NcclRunner::Participant& p) {
  return " (rank " + std::to_string(p.comm->rank()) + ")";
}

}  // namespace

StatusOr<const Nccl*> Nccl::load() {
  return loadOnce(openNccl);
}

Status Nccl::check(ncclResult_t result, const std::string& what) const {
  if (result == kNcclSuccess) return Status::ok();
  std::string message =
      what + " failed: " + ncclResultName(result) + " (" + std::to_string(result) + ")";
  const char* detail = getErrorString != nullptr ? getErrorString(result) : nullptr;
  if (detail != nullptr && *detail != '\0') message += std::string(": ") + detail;
  switch (result) {
    case kNcclInvalidArgument:
      return invalidArgument(message);
    case kNcclInvalidUsage:
      return failedPrecondition(message);
    case kNcclRemoteError:
    case kNcclSystemError:
    case kNcclTimeout:
      return unavailable(message);
    default:
      return internalError(message);
  }
}

// clang-format off
constexpr EnumMapping<CollectiveType, ncclDataType_t> kNcclDataTypes[] = {
    {CollectiveType::kS8, kNcclInt8}, {CollectiveType::kU8, kNcclUint8},
    {CollectiveType::kS32, kNcclInt32}, {CollectiveType::kU32, kNcclUint32},
    {CollectiveType::kS64, kNcclInt64}, {CollectiveType::kU64, kNcclUint64},
    {CollectiveType::kF16, kNcclFloat16}, {CollectiveType::kBF16, kNcclBfloat16},
    {CollectiveType::kF32, kNcclFloat32}, {CollectiveType::kF64, kNcclFloat64},
    {CollectiveType::kF8E4M3FN, kNcclFloat8e4m3},
    {CollectiveType::kF8E5M2, kNcclFloat8e5m2},
};
// clang-format on

ncclDataType_t ncclDataTypeOf(CollectiveType type) {
  return mapOf(kNcclDataTypes, type, kNcclUint8);
}

// clang-format off
constexpr EnumMapping<CollectiveReduction, ncclRedOp_t> kRedOps[] = {
    {CollectiveReduction::kSum, kNcclSum}, {CollectiveReduction::kProd, kNcclProd},
    {CollectiveReduction::kMin, kNcclMin}, {CollectiveReduction::kMax, kNcclMax},
};
// clang-format on

ncclRedOp_t ncclRedOpOf(CollectiveReduction reduction) {
  return mapOf(kRedOps, reduction, kNcclSum);
}

StatusOr<ncclUniqueId> newNcclUniqueId(const Nccl& nccl) {
  ncclUniqueId id{};
  JFT_RETURN_IF_ERROR(nccl.check(nccl.getUniqueId(&id), "ncclGetUniqueId"));
  return id;
}

// --- communicators ---------------------------------------------------------------

StatusOr<std::unique_ptr<NcclCommunicator>> NcclCommunicator::create(
    const Nccl& nccl, const ncclUniqueId& id, int rank, int size) {
  if (size < 1 || rank < 0 || rank >= size)
    return invalidArgument("an NCCL communicator of " + std::to_string(size) +
                           " ranks has no rank " + std::to_string(rank));
  ncclComm_t comm = nullptr;
  JFT_RETURN_IF_ERROR(nccl.check(nccl.commInitRank(&comm, size, id, rank),
                                 "ncclCommInitRank (rank " + std::to_string(rank) +
                                     " of " + std::to_string(size) + ")"));
  if (comm == nullptr) return internalError("ncclCommInitRank returned no communicator");
  return std::unique_ptr<NcclCommunicator>(new NcclCommunicator(nccl, comm, rank, size));
}

StatusOr<std::vector<std::unique_ptr<NcclCommunicator>>> NcclCommunicator::createAll(
    const Nccl& nccl, const std::vector<int>& ordinals) {
  if (ordinals.empty())
    return invalidArgument("ncclCommInitAll needs at least one device");
  std::vector<ncclComm_t> comms(ordinals.size(), nullptr);
  JFT_RETURN_IF_ERROR(nccl.check(
      nccl.commInitAll(comms.data(), static_cast<int>(ordinals.size()), ordinals.data()),
      "ncclCommInitAll over " + std::to_string(ordinals.size()) + " devices"));
  std::vector<std::unique_ptr<NcclCommunicator>> out;
  const int size = static_cast<int>(ordinals.size());
  for (int rank = 0; rank < size; ++rank)
    if (comms[rank] != nullptr)  // owned from here on, even if a later one is missing
      out.emplace_back(new NcclCommunicator(nccl, comms[rank], rank, size));
  if (out.size() != ordinals.size())
    return internalError("ncclCommInitAll returned a null communicator");
  return out;
}

NcclCommunicator::~NcclCommunicator() {
  if (comm_ == nullptr) return;
  if (finalized_)
    nccl_.commDestroy(comm_);
  else if (!asyncError().isOk())
    nccl_.commAbort(comm_);
  else
    nccl_.commDestroy(comm_);
}

void NcclCommunicator::destroyAll(std::vector<std::unique_ptr<NcclCommunicator>> comms) {
  std::vector<NcclCommunicator*> healthy;
  for (const auto& comm : comms)
    if (comm != nullptr && comm->comm_ != nullptr &&
        comm->nccl_.comm_finalize != nullptr && comm->asyncError().isOk())
      healthy.push_back(comm.get());
  if (!healthy.empty()) {
    const Nccl& nccl = healthy[0]->nccl_;
    // A failed finalize leaves its communicator to the destructor's own
    // destroy (which finalizes by itself).
    if (nccl.groupStart() == kNcclSuccess) {
      for (NcclCommunicator* comm : healthy)
        comm->finalized_ = nccl.comm_finalize(comm->comm_) == kNcclSuccess;
      nccl.groupEnd();
    }
  }
  comms.clear();
}

Status NcclCommunicator::asyncError() const {
  if (comm_ == nullptr) return failedPrecondition("the NCCL communicator was aborted");
  ncclResult_t pending = kNcclSuccess;
  const std::string where = " (rank " + std::to_string(rank_) + ")";
  JFT_RETURN_IF_ERROR(nccl_.check(nccl_.commGetAsyncError(comm_, &pending),
                                  "ncclCommGetAsyncError" + where));
  return nccl_.check(pending, "an NCCL communicator" + where);
}

Status NcclCommunicator::abort() {
  if (comm_ == nullptr) return Status::ok();
  ncclComm_t comm = comm_;
  comm_ = nullptr;
  return nccl_.check(nccl_.commAbort(comm),
                     "ncclCommAbort (rank " + std::to_string(rank_) + ")");
}

// --- the runner ------------------------------------------------------------------

Status NcclRunner::check(const CollectiveDesc& desc, const Participant& p) const {
  const std::string text = collectiveText(desc);
  if (p.comm == nullptr || p.comm->handle() == nullptr)
    return invalidArgument(text + ": no NCCL communicator");
  if (p.comm->size() != desc.ranks)
    return invalidArgument(text + ": the communicator has " +
                           std::to_string(p.comm->size()) + " ranks");
  if (!collectiveIsEmpty(desc) && (p.input == 0 || p.output == 0))
    return invalidArgument(text + rankText(p) + ": a buffer address is null");
  return Status::ok();
}

Status NcclRunner::enqueue(const CollectiveDesc& d, const Participant& p) const {
  const std::string text = collectiveText(d) + ": ";
  const std::string rank = rankText(p);
  const ncclDataType_t type = ncclDataTypeOf(d.type);
  const ncclComm_t comm = p.comm->handle();
  const void* in = devicePointer(p.input);
  void* out = devicePointer(p.output);
  const size_t count = static_cast<size_t>(d.count);
  switch (d.kind) {
    case CollectiveKind::kAllReduce:
      return nccl_.check(
          nccl_.allReduce(in, out, count, type, ncclRedOpOf(d.reduction), comm, p.stream),
          text + "ncclAllReduce" + rank);
    case CollectiveKind::kAllGather:
      return nccl_.check(nccl_.allGather(in, out, count, type, comm, p.stream),
                         text + "ncclAllGather" + rank);
    case CollectiveKind::kReduceScatter:
      return nccl_.check(
          nccl_.reduceScatter(in, out, count / static_cast<size_t>(d.ranks), type,
                              ncclRedOpOf(d.reduction), comm, p.stream),
          text + "ncclReduceScatter" + rank);
    case CollectiveKind::kCollectiveBroadcast:
      return nccl_.check(nccl_.broadcast(in, out, count, type, 0, comm, p.stream),
                         text + "ncclBroadcast" + rank);
    case CollectiveKind::kAllToAll: {
      const size_t chunk = count / static_cast<size_t>(d.ranks);
      const uint64_t chunkBytes = static_cast<uint64_t>(chunk) *
                                  static_cast<uint64_t>(collectiveElementBytes(d.type));
      for (int peer = 0; peer < d.ranks; ++peer) {
        const uint64_t offset = static_cast<uint64_t>(peer) * chunkBytes;
        const std::string to = " to rank " + std::to_string(peer);
        const std::string from = " from rank " + std::to_string(peer);
        JFT_RETURN_IF_ERROR(nccl_.check(nccl_.send(devicePointer(p.input + offset), chunk,
                                                   type, peer, comm, p.stream),
                                        text + "ncclSend" + rank + to));
        JFT_RETURN_IF_ERROR(nccl_.check(nccl_.recv(devicePointer(p.output + offset),
                                                   chunk, type, peer, comm, p.stream),
                                        text + "ncclRecv" + rank + from));
      }
      return Status::ok();
    }
    case CollectiveKind::kCollectivePermute: {
      const int64_t target = permuteTargetOf(d, p.comm->rank());
      const int64_t source = permuteSourceOf(d, p.comm->rank());
      if (target >= 0)
        JFT_RETURN_IF_ERROR(nccl_.check(
            nccl_.send(in, count, type, static_cast<int>(target), comm, p.stream),
            text + "ncclSend" + rank + " to rank " + std::to_string(target)));
      if (source >= 0)
        JFT_RETURN_IF_ERROR(nccl_.check(
            nccl_.recv(out, count, type, static_cast<int>(source), comm, p.stream),
            text + "ncclRecv" + rank + " from rank " + std::to_string(source)));
      return Status::ok();
    }
  }
  return internalError(text + "unknown collective kind");
}

Status NcclRunner::run(const CollectiveDesc& desc, const Participant& participant) const {
  return runGroup(desc, {participant});
}

Status NcclRunner::runGroup(const CollectiveDesc& desc,
                            const std::vector<Participant>& participants) const {
  JFT_RETURN_IF_ERROR(validateCollective(desc));
  if (participants.empty())
    return invalidArgument(collectiveText(desc) + ": no participant to run");
  for (const Participant& p : participants) JFT_RETURN_IF_ERROR(check(desc, p));
  if (collectiveIsEmpty(desc)) return Status::ok();

  // A permute target nobody sends to outputs zeros (StableHLO); queued on its
  // stream ahead of the group, which writes nothing there.
  if (desc.kind == CollectiveKind::kCollectivePermute) {
    for (const Participant& p : participants) {
      if (permuteSourceOf(desc, p.comm->rank()) >= 0) continue;
      if (!zero_fill_)
        return internalError(collectiveText(desc) + rankText(p) +
                             ": the runner has no way to zero an output");
      JFT_RETURN_IF_ERROR(zero_fill_(p.output, collectiveOutputBytes(desc), p.stream));
    }
  }

  // One group around every call: all_to_all and permute pair their sends and
  // receives in it, and several ranks driven by one thread must be issued
  // together. The group is closed even when a call inside it failed.
  const std::string text = collectiveText(desc) + ": ";
  JFT_RETURN_IF_ERROR(nccl_.check(nccl_.groupStart(), text + "ncclGroupStart"));
  Status first = Status::ok();
  for (const Participant& p : participants) {
    first = enqueue(desc, p);
    if (!first.isOk()) break;
  }
  Status end = nccl_.check(nccl_.groupEnd(), text + "ncclGroupEnd");
  if (!first.isOk()) return first;
  return end;
}

}  // namespace jft::runtime::gpu
