// The bytes of a serialized executable (PJRT_Executable_Serialize, and JAX's
// persistent compilation cache): everything a process needs to run the
// program without compiling it again, kernel binaries included, so loading
// starts no kernel worker.
//
//   "JFTEXEC\0"  magic (8 bytes)
//   u32          format version (kFormatVersion)
//   bytes        build identity (build_identity.h)
//   bytes        target ("cuda 90 warp 32")
//   u64          checksum of the payload (FNV-1a 64)
//   bytes        payload: name, fingerprint, parameter and output specs,
//                replicas, partitions, the received program and its format,
//                the compile options, then the runtime::Program
//                (runtime/program_codec.h)
//
// All little-endian (support/byte_stream.h); `bytes` is a u64 length and the
// bytes. Change the payload, bump kFormatVersion.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "pjrt/executable_info.h"
#include "support/status.h"

namespace jft::pjrt {

// 2: cost analysis counts; 3: memory kinds; 4: while ping-pong lists;
// 5: entry layouts.
inline constexpr uint32_t kFormatVersion = 5;

std::string serializeExecutable(const ExecutableInfo& info, std::string_view identity);

// The two halves of serializeExecutable, for the fuzzer (which mutates a
// payload and seals it, so its mutants pass the checksum): the payload of
// `info`, and the envelope around a payload.
std::string executablePayload(const ExecutableInfo& info);
std::string sealExecutablePayload(std::string_view payload, std::string_view identity,
                                  std::string_view target);

// Refused, with what is wrong and that the program must be compiled again:
// INVALID_ARGUMENT for bytes that are not ours (magic), truncated or corrupt
// (checksum, payload, a program that does not check); FAILED_PRECONDITION for
// another format version, another build (`identity`), or a target other than
// `target` (empty: any, for tools and the fuzzer).
StatusOr<std::shared_ptr<ExecutableInfo>> deserializeExecutable(std::string_view bytes,
                                                                std::string_view identity,
                                                                std::string_view target);

}  // namespace jft::pjrt
