// Deterministic mutations of one input, drawn from a seeded generator: the
// same seed and corpus give the same mutants on every machine, so a failure
// found in CI is replayed by its mutant number alone.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bytecode_sections.h"

namespace jft::fuzz {

// splitmix64: tiny, fully specified (std::*_distribution is not portable).
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t next();
  size_t below(size_t n) { return n == 0 ? 0 : size_t(next() % n); }
  bool oneIn(size_t n) { return below(n) == 0; }

 private:
  uint64_t state_;
};

struct Mutant {
  Bytes bytes;
  std::string how;  // the mutations applied, for the report
};

// Byte-level mutations: bit flips, overwrites with boundary values, huge
// varints written or inserted, truncation, deletion and duplication of spans.
void mutateBytes(Bytes& bytes, Random& random, std::string& how);

// For MLIR bytecode: mutates within one section and rewrites its length, splices
// a section from another corpus file (`donors`), drops, duplicates or swaps
// sections; falls back to byte-level mutations when `bytes` is not a
// well-formed container. One to four mutations, stacked (one half the time).
Mutant mutateBytecode(const Bytes& bytes, const std::vector<Bytes>& donors,
                      Random& random);

// For protobuf bytes (no container to respect): one to four byte-level mutations (one
// half the time).
Mutant mutatePlain(const Bytes& bytes, const std::vector<Bytes>& donors, Random& random);

}  // namespace jft::fuzz
