#include "compiler/autotune_cache.h"

#include "kernel_compiler/json.h"
#include "kernel_compiler/sha256.h"
#include "support/atomic_file.h"

namespace jft::compiler {
namespace {

using kernel_compiler::Json;

bool powerOfTwoIn(int64_t v, int64_t lo, int64_t hi) {
  return v >= lo && v <= hi && (v & (v - 1)) == 0;
}

StatusOr<MatmulDecision> decode(const Json& entry, const std::string& key) {
  JFT_ASSIGN_OR_RETURN(std::string stored, kernel_compiler::requireString(entry, "key"));
  if (stored != key) return invalidArgument("the entry is of another key");
  MatmulDecision d;
  d.cached = true;
  JFT_ASSIGN_OR_RETURN(d.winner.library, kernel_compiler::requireBool(entry, "library"));
  JFT_ASSIGN_OR_RETURN(d.micros, kernel_compiler::requireNumber(entry, "micros"));
  JFT_ASSIGN_OR_RETURN(int64_t candidates,
                       kernel_compiler::requireInt(entry, "candidates"));
  if (!(d.micros >= 0) || candidates < 1 || candidates > 1000)
    return invalidArgument("time or candidate count out of range");
  d.candidates = static_cast<int>(candidates);
  if (d.winner.library) return d;
  codegen::ttir::MatmulTile& t = d.winner.tile;
  JFT_ASSIGN_OR_RETURN(t.m, kernel_compiler::requireInt(entry, "block_m"));
  JFT_ASSIGN_OR_RETURN(t.n, kernel_compiler::requireInt(entry, "block_n"));
  JFT_ASSIGN_OR_RETURN(t.k, kernel_compiler::requireInt(entry, "block_k"));
  JFT_ASSIGN_OR_RETURN(t.group_m, kernel_compiler::requireInt(entry, "group_m"));
  JFT_ASSIGN_OR_RETURN(int64_t warps, kernel_compiler::requireInt(entry, "num_warps"));
  JFT_ASSIGN_OR_RETURN(int64_t stages, kernel_compiler::requireInt(entry, "num_stages"));
  // The emitter needs power-of-two blocks of at least 16; anything else is a
  // damaged entry, not a tile to try.
  if (!powerOfTwoIn(t.m, 16, 1024) || !powerOfTwoIn(t.n, 16, 1024) ||
      !powerOfTwoIn(t.k, 16, 1024) || t.group_m < 1 || t.group_m > 64 ||
      !powerOfTwoIn(warps, 1, 32) || stages < 1 || stages > 8)
    return invalidArgument("tile out of range");
  t.num_warps = static_cast<int>(warps);
  t.num_stages = static_cast<int>(stages);
  return d;
}

}  // namespace

std::string autotuneKey(const std::string& dot_signature, const std::string& device) {
  return dot_signature + "\ndevice: " + device + "\nmatmul candidates v" +
         std::to_string(kMatmulCandidateSetVersion);
}

std::string autotuneEntryPath(const std::string& cache_dir, const std::string& key) {
  return cache_dir + "/autotune/" + kernel_compiler::sha256Hex(key) + ".json";
}

std::optional<MatmulDecision> readDecision(const std::string& cache_dir,
                                           const std::string& key, std::string* why) {
  StatusOr<std::string> text = readWholeFile(autotuneEntryPath(cache_dir, key));
  if (!text.isOk()) {
    if (why != nullptr && text.status().code() != StatusCode::kNotFound)
      *why = text.status().message();
    return std::nullopt;
  }
  StatusOr<Json> entry = Json::parse(*text);
  StatusOr<MatmulDecision> decision =
      entry.isOk() ? decode(*entry, key) : StatusOr<MatmulDecision>(entry.status());
  if (!decision.isOk()) {
    if (why != nullptr) *why = decision.status().message();
    return std::nullopt;
  }
  return *decision;
}

Status writeDecision(const std::string& cache_dir, const std::string& key,
                     const MatmulDecision& decision) {
  JFT_RETURN_IF_ERROR(makeDirectories(cache_dir + "/autotune"));
  Json entry;
  entry.set("key", key);
  entry.set("winner", candidateName(decision.winner));
  entry.set("library", decision.winner.library);
  entry.set("micros", decision.micros);
  entry.set("candidates", decision.candidates);
  if (!decision.winner.library) {
    const codegen::ttir::MatmulTile& t = decision.winner.tile;
    entry.set("block_m", t.m);
    entry.set("block_n", t.n);
    entry.set("block_k", t.k);
    entry.set("group_m", t.group_m);
    entry.set("num_warps", t.num_warps);
    entry.set("num_stages", t.num_stages);
  }
  return writeFileAtomically(autotuneEntryPath(cache_dir, key), entry.dump());
}

}  // namespace jft::compiler
