// What the fuzzer feeds and what it holds each entry point to: any bytes give
// a result or an error of an allowed code with a message. A crash, a
// sanitizer report or a hang is caught by the driver (fuzz_main.cc).
#pragma once

#include <string>
#include <vector>

#include "bytecode_sections.h"

namespace jft::fuzz {

struct Target {
  std::string name;
  std::string extension;  // of its corpus and regression files
  bool sectioned;         // MLIR bytecode: section-aware mutations
  bool in_all;            // run by --target all (the self-test targets are not)
  // "" when the outcome keeps the contract, else what broke it; `outcome`
  // names how far the input got ("read error", "import error", "ok", ...),
  // which the driver tallies to show that mutants reach the inner parsers.
  std::string (*run)(const Bytes& bytes, std::string& outcome);
  // Seeds made from the corpus directory; unset: the corpus's files of
  // `extension` (sectioned targets) or the compile-options seeds.
  std::vector<Bytes> (*seeds)(const std::string& corpus_dir) = nullptr;
};

// executable: deserializeExecutable of a whole serialized executable (most
// mutants fail the checksum); executable_payload: the input sealed as a
// payload (right checksum, build and target), so mutants reach the program
// decoder and program_check.
// bytecode: readBytecode, then (on a tree) dumpTree, importTree and
// ir::verifyModule on the module. compile_options: parseCompileOptions.
// ir_text: ir::parseModule on IR text (seeds: each zoo program printed with
// full locations); what it accepts must verify without crashing and print
// back to text that parses to the same print.
// selftest_crash / selftest_hang abort / spin on every input: they prove that
// the driver catches and saves what it is there to catch.
const std::vector<Target>& targets();

// Protobuf CompileOptionsProto seeds: what JAX sends for one device, for
// replicas x partitions with a device assignment (packed and unpacked ids),
// portable executables, compiler_options overrides and unknown fields of each
// wire type.
std::vector<Bytes> compileOptionsSeeds();

// Serialized executables of hand-built programs (kernels, constants, every
// thunk kind with its description, an FFI call with nested attributes): whole
// blobs, and their payloads.
std::vector<Bytes> executableSeeds(const std::string& corpus_dir);
std::vector<Bytes> executablePayloadSeeds(const std::string& corpus_dir);

}  // namespace jft::fuzz
