#include "targets.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <string_view>
#include <thread>

#include "frontend/bytecode/reader.h"
#include "frontend/vhlo/import.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "pjrt/compile_options.h"
#include "pjrt/executable_blob.h"

namespace jft::fuzz {
namespace {

std::string expectError(const Status& status, std::initializer_list<StatusCode> allowed,
                        const char* stage) {
  bool ok_code = false;
  for (StatusCode code : allowed) ok_code = ok_code || status.code() == code;
  if (!ok_code)
    return std::string(stage) + " returned an unexpected " + status.toString();
  if (status.message().empty()) return std::string(stage) + " returned an empty message";
  return "";
}

std::string runBytecode(const Bytes& bytes, std::string& outcome) {
  // A buffer of exactly the input's size, so ASan sees any read past its end.
  std::unique_ptr<uint8_t[]> exact(new uint8_t[bytes.empty() ? 1 : bytes.size()]);
  std::copy(bytes.begin(), bytes.end(), exact.get());
  StatusOr<frontend::MTree> tree = frontend::readBytecode(exact.get(), bytes.size());
  outcome = "read error";
  if (!tree.isOk())
    return expectError(tree.status(), {StatusCode::kInvalidArgument}, "readBytecode");
  if (frontend::dumpTree(*tree, 1 << 14).empty()) return "dumpTree gave nothing";
  StatusOr<ir::Module> module = frontend::importTree(*tree);
  if (!module.isOk()) {
    outcome = module.status().code() == StatusCode::kUnimplemented
                  ? "import unimplemented"
                  : "import error";
    return expectError(module.status(),
                       {StatusCode::kInvalidArgument, StatusCode::kUnimplemented},
                       "importTree");
  }
  Status verified = ir::verifyModule(*module);
  outcome = "verify error";
  if (!verified.isOk())
    return expectError(verified, {StatusCode::kInvalidArgument}, "verifyModule");
  if (ir::printModule(*module).empty()) return "printModule gave nothing";
  outcome = "ok";
  return "";
}

std::string runCompileOptions(const Bytes& bytes, std::string& outcome) {
  std::unique_ptr<char[]> exact(new char[bytes.empty() ? 1 : bytes.size()]);
  std::copy(bytes.begin(), bytes.end(), exact.get());
  auto options = pjrt::parseCompileOptions(std::string_view(exact.get(), bytes.size()));
  outcome = "parse error";
  if (!options.isOk())
    return expectError(options.status(), {StatusCode::kInvalidArgument},
                       "parseCompileOptions");
  outcome = "ok";
  if (options->num_replicas < 1 || options->num_partitions < 1)
    return "parseCompileOptions accepted a device count below one";
  return "";
}

constexpr std::string_view kFuzzIdentity = "fuzz build";
constexpr std::string_view kFuzzTarget = "cuda 90 warp 32";

std::string checkExecutable(std::string_view bytes, std::string& outcome) {
  auto info = pjrt::deserializeExecutable(bytes, kFuzzIdentity, kFuzzTarget);
  if (!info.isOk()) {
    outcome = info.status().message().find("checksum") != std::string::npos ? "checksum"
              : info.status().message().find("does not check") != std::string::npos
                  ? "program check"
                  : "decode error";
    return expectError(info.status(),
                       {StatusCode::kInvalidArgument, StatusCode::kFailedPrecondition},
                       "deserializeExecutable");
  }
  outcome = "ok";
  // What loads must serialize again to what was read.
  auto again = pjrt::deserializeExecutable(
      pjrt::serializeExecutable(**info, kFuzzIdentity), kFuzzIdentity, kFuzzTarget);
  if (!again.isOk()) return "a deserialized executable did not serialize back";
  return "";
}

std::string runExecutable(const Bytes& bytes, std::string& outcome) {
  std::unique_ptr<char[]> exact(new char[bytes.empty() ? 1 : bytes.size()]);
  std::copy(bytes.begin(), bytes.end(), exact.get());
  return checkExecutable(std::string_view(exact.get(), bytes.size()), outcome);
}

std::string runExecutablePayload(const Bytes& bytes, std::string& outcome) {
  std::string sealed = pjrt::sealExecutablePayload(
      std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
      kFuzzIdentity, kFuzzTarget);
  return checkExecutable(sealed, outcome);
}

// The protobuf wire format, for the seeds.
Bytes varint(uint64_t value) {
  Bytes out;
  while (value >= 0x80) {
    out.push_back(uint8_t(value | 0x80));
    value >>= 7;
  }
  out.push_back(uint8_t(value));
  return out;
}
Bytes operator+(Bytes a, const Bytes& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
Bytes tag(int field, int wire) {
  return varint(uint64_t(field) << 3 | uint64_t(wire));
}
Bytes intField(int field, uint64_t value) {
  return tag(field, 0) + varint(value);
}
Bytes message(int field, const Bytes& body) {
  return tag(field, 2) + varint(body.size()) + body;
}
Bytes text(std::string_view s) {
  return Bytes(s.begin(), s.end());
}

Bytes assignment(int replicas, int computations, bool packed) {
  Bytes out = intField(1, uint64_t(replicas)) + intField(2, uint64_t(computations));
  int id = 0;
  for (int c = 0; c < computations; ++c) {
    Bytes ids, body;
    for (int r = 0; r < replicas; ++r) {
      if (packed)
        ids = ids + varint(uint64_t(id++));
      else
        body = body + intField(1, uint64_t(id++));
    }
    out = out + message(3, packed ? message(1, ids) : body);
  }
  return out;
}

}  // namespace

std::vector<Bytes> compileOptionsSeeds() {
  Bytes one = message(3, intField(1, 0) + intField(4, 1) + intField(5, 1));
  Bytes grid =
      message(3, intField(4, 2) + intField(5, 4) + message(9, assignment(2, 4, true)));
  Bytes unpacked =
      message(3, intField(4, 4) + intField(5, 1) + message(9, assignment(4, 1, false)));
  Bytes overrides = one +
                    message(7, message(1, text("xla_gpu_autotune_level")) +
                                   message(2, intField(3, 2))) +
                    intField(4, 1);
  // Unknown fields: varint, 64-bit, length-delimited, 32-bit.
  Bytes unknown = one + intField(15, 7) + tag(16, 1) + Bytes(8, 0x11) +
                  message(17, text("x")) + tag(18, 5) + Bytes(4, 0x22);
  return {Bytes(), one, grid, unpacked, overrides, unknown};
}

namespace {

std::string runIrText(const Bytes& bytes, std::string& outcome) {
  const std::string text(bytes.begin(), bytes.end());
  StatusOr<ir::Module> module = ir::parseModule(text);
  outcome = "parse error";
  if (!module.isOk())
    return expectError(module.status(), {StatusCode::kInvalidArgument}, "parseModule");
  outcome = "parsed";
  Status verified = ir::verifyModule(*module);
  if (!verified.isOk() && verified.message().empty())
    return "verifyModule: empty message";
  ir::PrintOptions full;
  full.print_locations = full.full_locations = true;
  const std::string printed = ir::printModule(*module, full);
  StatusOr<ir::Module> again = ir::parseModule(printed);
  if (!again.isOk())
    return "printed text of an accepted module does not parse: " +
           again.status().message();
  if (ir::printModule(*again, full) != printed)
    return "printed text of an accepted module does not print back the same";
  outcome = verified.isOk() ? "ok" : "verify error";
  return "";
}

std::vector<Bytes> irTextSeeds(const std::string& corpus_dir) {
  std::vector<std::filesystem::path> files;
  std::error_code error;
  for (auto it = std::filesystem::recursive_directory_iterator(corpus_dir, error);
       !error && it != std::filesystem::recursive_directory_iterator();
       it.increment(error))
    if (it->path().extension() == ".mlirbc") files.push_back(it->path());
  std::sort(files.begin(), files.end());
  ir::PrintOptions full;
  full.print_locations = full.full_locations = true;
  std::vector<Bytes> seeds;
  for (const auto& path : files) {
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    auto module = frontend::importStableHlo(
        reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    if (!module.isOk()) continue;
    const std::string text = ir::printModule(*module, full);
    seeds.emplace_back(text.begin(), text.end());
  }
  return seeds;
}

}  // namespace

[[noreturn]] static std::string crashOnAnything(const Bytes&, std::string&) {
  std::abort();
}

[[noreturn]] static std::string hangOnAnything(const Bytes&, std::string&) {
  while (true) std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

const std::vector<Target>& targets() {
  static const std::vector<Target> all = {
      {"bytecode", ".mlirbc", true, true, runBytecode},
      {"compile_options", ".pb", false, true, runCompileOptions},
      {"ir_text", ".ir", false, true, runIrText, irTextSeeds},
      {"executable", ".jftx", false, true, runExecutable, executableSeeds},
      {"executable_payload", ".bin", false, true, runExecutablePayload,
       executablePayloadSeeds},
      {"selftest_crash", ".bin", false, false, crashOnAnything},
      {"selftest_hang", ".bin", false, false, hangOnAnything},
  };
  return all;
}

}  // namespace jft::fuzz
