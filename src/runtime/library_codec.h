// The library descriptions a program carries (GEMM, FFT, solver,
// convolution, collective and its groups) as bytes, for serialized
// executables: every field, little-endian (support/byte_stream.h). Decoding
// checks only the encoding (lengths, enum ranges); whether a description is
// valid is runtime/program_check's question, asked of the whole program.
#pragma once

#include "runtime/collective.h"
#include "runtime/collective_groups.h"
#include "runtime/gemm.h"
#include "runtime/library_op.h"
#include "support/byte_stream.h"

namespace jft::runtime {

void encodeGemm(ByteWriter& out, const GemmDesc& desc);
StatusOr<GemmDesc> decodeGemm(ByteReader& in);

// FftDesc, SolverDesc or ConvDesc, tagged by its variant index.
void encodeLibraryOp(ByteWriter& out, const LibraryOp& op);
StatusOr<LibraryOp> decodeLibraryOp(ByteReader& in);

void encodeCollective(ByteWriter& out, const CollectiveDesc& desc);
StatusOr<CollectiveDesc> decodeCollective(ByteReader& in);

void encodeCollectiveGroups(ByteWriter& out, const CollectiveGroups& groups);
StatusOr<CollectiveGroups> decodeCollectiveGroups(ByteReader& in);

// An enum stored as one byte, refused above `last`.
template <typename E>
StatusOr<E> decodeEnum(ByteReader& in, const char* what, E last) {
  JFT_ASSIGN_OR_RETURN(uint8_t value, in.enumeration(what, static_cast<uint8_t>(last)));
  return static_cast<E>(value);
}

}  // namespace jft::runtime
