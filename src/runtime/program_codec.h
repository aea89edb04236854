// A runtime::Program as bytes, for serialized executables: kernel images
// (binary, entry point, launch contract), buffer slots (constants' data
// included), the thunk list and nested lists with every description, and the
// parameter/output/alias/donation tables. Little-endian, field by field
// (support/byte_stream.h); the envelope (magic, versions, target, checksum)
// is the caller's.
#pragma once

#include "runtime/program.h"
#include "support/byte_stream.h"

namespace jft::runtime {

void encodeProgram(ByteWriter& out, const Program& program);

// INVALID_ARGUMENT when the bytes are not an encoded program (truncated, an
// unknown thunk or enum value, counts larger than the bytes). The program is
// then checked as loading checks it (program_check.h, warp size
// `warp_size`), so indices and sizes that do not fit are refused here rather
// than on a device.
StatusOr<Program> decodeProgram(ByteReader& in, int warp_size);

}  // namespace jft::runtime
