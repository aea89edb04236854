// NCCL communicators per clique, and one device's collective runner.
#include "runtime/gpu/nccl_cliques.h"

#include <cmath>
#include <cstdlib>
#include <set>

#include "runtime/in_process_clique_ids.h"

namespace jft::runtime::gpu {
namespace {

constexpr double kDefaultTimeoutSeconds = 300;
// Longer than anyone waits, short enough that milliseconds fit in 64 bits.
constexpr double kMaxTimeoutSeconds = 1e9;

std::string idsText(std::span<const int64_t> clique) {
  std::string text;
  for (size_t i = 0; i < clique.size(); ++i)
    text += (i > 0 ? "," : "") + std::to_string(clique[i]);
  return text;
}

std::string cliqueText(std::span<const int64_t> clique, int64_t rank) {
  return "rank " + std::to_string(rank) + " of clique {" + idsText(clique) + "}";
}

}  // namespace

StatusOr<std::chrono::milliseconds> cliqueIdTimeout() {
  const char* setting = std::getenv("JFT_COLLECTIVE_TIMEOUT_S");
  double seconds = kDefaultTimeoutSeconds;
  if (setting != nullptr && *setting != '\0') {
    char* end = nullptr;
    seconds = std::strtod(setting, &end);
    if (end == setting || *end != '\0' || !std::isfinite(seconds) || seconds <= 0 ||
        seconds > kMaxTimeoutSeconds)
      return invalidArgument("JFT_COLLECTIVE_TIMEOUT_S='" + std::string(setting) +
                             "' is not a number of seconds in (0, 1e9]");
  }
  return std::chrono::milliseconds(static_cast<int64_t>(std::ceil(seconds * 1000)));
}

std::string cliqueIdKey(std::span<const int64_t> clique) {
  return "jft/nccl_clique_id/" + idsText(clique);
}

std::string encodeCliqueId(const ncclUniqueId& id) {
  static const char kDigits[] = "0123456789abcdef";
  std::string text;
  for (char c : id.internal) {
    const auto byte = static_cast<uint8_t>(c);
    text += kDigits[byte >> 4];
    text += kDigits[byte & 15];
  }
  return text;
}

StatusOr<ncclUniqueId> decodeCliqueId(const std::string& text) {
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  ncclUniqueId id{};
  bool valid = text.size() == 2 * kNcclUniqueIdBytes;
  for (size_t i = 0; valid && i < kNcclUniqueIdBytes; ++i) {
    const int high = digit(text[2 * i]), low = digit(text[2 * i + 1]);
    valid = high >= 0 && low >= 0;
    id.internal[i] = static_cast<char>(high * 16 + low);
  }
  if (!valid)
    return invalidArgument(
        "a clique id must be " + std::to_string(2 * kNcclUniqueIdBytes) +
        " lowercase hex digits; got " + std::to_string(text.size()) + " characters");
  return id;
}

// --- the communicators ---------------------------------------------------------

NcclCliques::NcclCliques(Loader loadNccl)
    : load_nccl_(std::move(loadNccl)),
      exchange_(std::make_shared<InProcessCliqueIds>()) {}

NcclCliques::~NcclCliques() {
  destroyAll();
}

void NcclCliques::setExchange(std::shared_ptr<CliqueIdExchange> exchange) {
  std::lock_guard<std::mutex> lock(mutex_);
  default_exchange_ = exchange == nullptr;
  exchange_ =
      exchange != nullptr ? std::move(exchange) : std::make_shared<InProcessCliqueIds>();
}

StatusOr<const Nccl*> NcclCliques::nccl() const {
  StatusOr<const Nccl*> nccl = load_nccl_();
  if (!nccl.isOk()) return nccl.status().withContext("collectives over GPUs need NCCL");
  return nccl;
}

StatusOr<NcclCommunicator*> NcclCliques::communicator(std::span<const int64_t> clique,
                                                      int64_t rank, int owner) {
  JFT_ASSIGN_OR_RETURN(const Nccl* nccl, this->nccl());
  std::shared_ptr<Entry> entry;
  std::shared_ptr<CliqueIdExchange> exchange;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    std::shared_ptr<Entry>& slot =
        entries_[Key(std::vector<int64_t>(clique.begin(), clique.end()), rank)];
    if (slot == nullptr) slot = std::make_shared<Entry>();
    entry = slot;
    exchange = exchange_;
  }
  // Only the one device that holds this rank comes here, so waiting for its
  // own communicator to be made holds back nobody else.
  std::lock_guard<std::mutex> lock(entry->mutex);
  if (entry->comm == nullptr) {
    Status made = make(*entry, clique, rank, *nccl, *exchange);
    if (!made.isOk()) return made.withContext(cliqueText(clique, rank));
    entry->owner = owner;
  }
  if (entry->owner != owner)
    return invalidArgument(cliqueText(clique, rank) + " belongs to device " +
                           std::to_string(entry->owner) + ", not device " +
                           std::to_string(owner));
  return entry->comm.get();
}

Status NcclCliques::make(Entry& entry, std::span<const int64_t> clique, int64_t rank,
                         const Nccl& nccl, CliqueIdExchange& exchange) {
  const std::string key = cliqueIdKey(clique);
  ncclUniqueId id{};
  if (rank == 0) {
    JFT_ASSIGN_OR_RETURN(id, newNcclUniqueId(nccl));
    if (clique.size() > 1) JFT_RETURN_IF_ERROR(exchange.publish(key, encodeCliqueId(id)));
  } else {
    JFT_ASSIGN_OR_RETURN(std::chrono::milliseconds timeout, cliqueIdTimeout());
    JFT_ASSIGN_OR_RETURN(std::string text, exchange.wait(key, timeout));
    StatusOr<ncclUniqueId> decoded = decodeCliqueId(text);
    if (!decoded.isOk())
      return decoded.status().withContext("the value under '" + key + "'");
    id = *decoded;
  }
  JFT_ASSIGN_OR_RETURN(entry.comm,
                       NcclCommunicator::create(nccl, id, static_cast<int>(rank),
                                                static_cast<int>(clique.size())));
  return Status::ok();
}

void NcclCliques::destroyAll() {
  std::vector<std::unique_ptr<NcclCommunicator>> comms;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [key, entry] : entries_) {
      std::lock_guard<std::mutex> entryLock(entry->mutex);
      if (entry->comm != nullptr) comms.push_back(std::move(entry->comm));
    }
    entries_.clear();
    if (default_exchange_) exchange_ = std::make_shared<InProcessCliqueIds>();
  }
  NcclCommunicator::destroyAll(std::move(comms));
}

size_t NcclCliques::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t count = 0;
  for (const auto& [key, entry] : entries_) {
    std::lock_guard<std::mutex> entryLock(entry->mutex);
    count += entry->comm != nullptr ? 1 : 0;
  }
  return count;
}

// --- one device's runner --------------------------------------------------------

Status NcclDeviceRunner::run(const CollectiveDesc& desc, std::span<const int64_t> clique,
                             int64_t rank, uint64_t input, uint64_t output) {
  const std::string where =
      collectiveText(desc) + " on " + target_.name + " as " + cliqueText(clique, rank);
  if (clique.empty() || static_cast<int64_t>(clique.size()) != desc.ranks)
    return invalidArgument(where + ": the clique has " + std::to_string(clique.size()) +
                           " devices");
  if (rank < 0 || rank >= static_cast<int64_t>(clique.size()))
    return invalidArgument(where + ": the rank is outside the clique");
  if (std::set<int64_t>(clique.begin(), clique.end()).size() != clique.size())
    return invalidArgument(where + ": the clique names a device twice");
  JFT_RETURN_IF_ERROR(validateCollective(desc));
  if (collectiveIsEmpty(desc)) return Status::ok();

  std::lock_guard<std::mutex> lock(mutex_);
  JFT_ASSIGN_OR_RETURN(const Nccl* nccl, cliques_.nccl());
  JFT_RETURN_IF_ERROR(target_.make_current());
  StatusOr<NcclCommunicator*> comm = cliques_.communicator(clique, rank, target_.ordinal);
  if (!comm.isOk()) return comm.status().withContext(target_.name);
  // A failure NCCL noticed after an earlier run returned (a peer gone, a
  // network error) is this run's error: the communicator cannot be used.
  if (Status pending = (*comm)->asyncError(); !pending.isOk())
    return pending.withContext(where);
  Status status = NcclRunner(*nccl, target_.zero_fill)
                      .run(desc, {*comm, target_.stream, input, output});
  if (!status.isOk()) return status.withContext(target_.name);
  return status;
}

}  // namespace jft::runtime::gpu
