// The autotuner's winners on disk, so that a second process compiling the
// same dot for the same device reuses the decision without measuring.
//
// One JSON file per decision under <cache dir>/autotune/ (the kernel cache's
// directory, kernel_compiler/cache_dir.h), named by the SHA-256 of its key; the key
// text itself is stored too and compared on read, so a hash collision or a
// stale file reads as a miss. Writes are atomic. A missing, unreadable,
// malformed or inconsistent entry is a miss (the dot is measured again and the
// entry rewritten), never an error.
#pragma once

#include <optional>
#include <string>

#include "compiler/matmul_candidates.h"
#include "support/status.h"

namespace jft::compiler {

struct MatmulDecision {
  MatmulCandidate winner;
  double micros = 0;    // the winner's measured time
  int candidates = 0;   // how many were measured (failures included)
  bool cached = false;  // read from the cache rather than measured now
};

// What a decision depends on: the dot (fusion::matmulSignature), the device
// (Measurer::deviceKey) and the candidate set's version.
std::string autotuneKey(const std::string& dot_signature, const std::string& device);

// The entry's path under `cache_dir`.
std::string autotuneEntryPath(const std::string& cache_dir, const std::string& key);

// nullopt on any kind of miss; `why` (may be null) says what was wrong with
// an entry that exists but cannot be used.
std::optional<MatmulDecision> readDecision(const std::string& cache_dir,
                                           const std::string& key,
                                           std::string* why = nullptr);

Status writeDecision(const std::string& cache_dir, const std::string& key,
                     const MatmulDecision& decision);

}  // namespace jft::compiler
