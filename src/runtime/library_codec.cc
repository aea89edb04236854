// Library description encodings.
#include "runtime/library_codec.h"

namespace jft::runtime {
namespace {

void encodeInts(ByteWriter& out, const std::vector<int64_t>& values) {
  out.u64(values.size());
  for (int64_t value : values) out.i64(value);
}

StatusOr<std::vector<int64_t>> decodeInts(ByteReader& in, const char* what) {
  JFT_ASSIGN_OR_RETURN(size_t count, in.count(what, 8));
  std::vector<int64_t> values;
  values.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    JFT_ASSIGN_OR_RETURN(int64_t value, in.i64(what));
    values.push_back(value);
  }
  return values;
}

void encodePairs(ByteWriter& out, const std::vector<std::pair<int64_t, int64_t>>& pairs) {
  out.u64(pairs.size());
  for (const auto& [source, target] : pairs) {
    out.i64(source);
    out.i64(target);
  }
}

StatusOr<std::vector<std::pair<int64_t, int64_t>>> decodePairs(ByteReader& in,
                                                               const char* what) {
  JFT_ASSIGN_OR_RETURN(size_t count, in.count(what, 16));
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (size_t i = 0; i < count; ++i) {
    JFT_ASSIGN_OR_RETURN(int64_t source, in.i64(what));
    JFT_ASSIGN_OR_RETURN(int64_t target, in.i64(what));
    pairs.emplace_back(source, target);
  }
  return pairs;
}

void encodeOperand(ByteWriter& out, const GemmOperand& operand) {
  out.u8(static_cast<uint8_t>(operand.type));
  out.boolean(operand.transpose);
  out.i64(operand.ld);
  out.i64(operand.batch_stride);
}

StatusOr<GemmOperand> decodeOperand(ByteReader& in) {
  GemmOperand operand;
  JFT_ASSIGN_OR_RETURN(operand.type, decodeEnum(in, "gemm operand type", GemmType::kS32));
  JFT_ASSIGN_OR_RETURN(operand.transpose, in.boolean("gemm transpose"));
  JFT_ASSIGN_OR_RETURN(operand.ld, in.i64("gemm ld"));
  JFT_ASSIGN_OR_RETURN(operand.batch_stride, in.i64("gemm batch stride"));
  return operand;
}

void encodeFft(ByteWriter& out, const FftDesc& desc) {
  out.u8(static_cast<uint8_t>(desc.kind));
  out.boolean(desc.f64);
  encodeInts(out, desc.lengths);
  out.i64(desc.batch);
}

StatusOr<FftDesc> decodeFft(ByteReader& in) {
  FftDesc desc;
  JFT_ASSIGN_OR_RETURN(desc.kind, decodeEnum(in, "fft kind", FftKind::kIrfft));
  JFT_ASSIGN_OR_RETURN(desc.f64, in.boolean("fft f64"));
  JFT_ASSIGN_OR_RETURN(desc.lengths, decodeInts(in, "fft lengths"));
  JFT_ASSIGN_OR_RETURN(desc.batch, in.i64("fft batch"));
  return desc;
}

void encodeSolver(ByteWriter& out, const SolverDesc& desc) {
  out.u8(static_cast<uint8_t>(desc.kind));
  out.u8(static_cast<uint8_t>(desc.type));
  out.i64(desc.batch);
  out.i64(desc.m);
  out.i64(desc.n);
  out.i64(desc.k);
  out.i64(desc.reflector_cols);
  out.boolean(desc.lower);
  out.boolean(desc.left_side);
  out.u8(static_cast<uint8_t>(desc.transpose));
  out.boolean(desc.unit_diagonal);
  out.u8(static_cast<uint8_t>(desc.algorithm));
  out.boolean(desc.full_matrices);
  out.boolean(desc.compute_uv);
  out.boolean(desc.eigenvectors);
}

StatusOr<SolverDesc> decodeSolver(ByteReader& in) {
  SolverDesc desc;
  JFT_ASSIGN_OR_RETURN(desc.kind,
                       decodeEnum(in, "solver kind", SolverKind::kCholeskyUpdate));
  JFT_ASSIGN_OR_RETURN(desc.type, decodeEnum(in, "solver type", SolverType::kS32));
  JFT_ASSIGN_OR_RETURN(desc.batch, in.i64("solver batch"));
  JFT_ASSIGN_OR_RETURN(desc.m, in.i64("solver m"));
  JFT_ASSIGN_OR_RETURN(desc.n, in.i64("solver n"));
  JFT_ASSIGN_OR_RETURN(desc.k, in.i64("solver k"));
  JFT_ASSIGN_OR_RETURN(desc.reflector_cols, in.i64("solver reflector columns"));
  JFT_ASSIGN_OR_RETURN(desc.lower, in.boolean("solver lower"));
  JFT_ASSIGN_OR_RETURN(desc.left_side, in.boolean("solver left side"));
  JFT_ASSIGN_OR_RETURN(desc.transpose,
                       decodeEnum(in, "solver transpose", SolverTranspose::kAdjoint));
  JFT_ASSIGN_OR_RETURN(desc.unit_diagonal, in.boolean("solver unit diagonal"));
  JFT_ASSIGN_OR_RETURN(desc.algorithm,
                       decodeEnum(in, "solver algorithm", EigAlgorithm::kJacobi));
  JFT_ASSIGN_OR_RETURN(desc.full_matrices, in.boolean("solver full matrices"));
  JFT_ASSIGN_OR_RETURN(desc.compute_uv, in.boolean("solver compute uv"));
  JFT_ASSIGN_OR_RETURN(desc.eigenvectors, in.boolean("solver eigenvectors"));
  return desc;
}

void encodeConvTensor(ByteWriter& out, const ConvTensor& tensor) {
  encodeInts(out, tensor.dims);
  encodeInts(out, tensor.strides);
}

StatusOr<ConvTensor> decodeConvTensor(ByteReader& in) {
  ConvTensor tensor;
  JFT_ASSIGN_OR_RETURN(tensor.dims, decodeInts(in, "conv tensor dims"));
  JFT_ASSIGN_OR_RETURN(tensor.strides, decodeInts(in, "conv tensor strides"));
  return tensor;
}

void encodeConv(ByteWriter& out, const ConvDesc& desc) {
  out.u8(static_cast<uint8_t>(desc.kind));
  out.u8(static_cast<uint8_t>(desc.element));
  out.boolean(desc.allow_tf32);
  out.boolean(desc.flip);
  encodeConvTensor(out, desc.x);
  encodeConvTensor(out, desc.w);
  encodeConvTensor(out, desc.y);
  encodeInts(out, desc.strides);
  encodeInts(out, desc.pre_padding);
  encodeInts(out, desc.post_padding);
  encodeInts(out, desc.dilations);
}

StatusOr<ConvDesc> decodeConv(ByteReader& in) {
  ConvDesc desc;
  JFT_ASSIGN_OR_RETURN(desc.kind, decodeEnum(in, "conv kind", ConvKind::kBackwardFilter));
  JFT_ASSIGN_OR_RETURN(desc.element, decodeEnum(in, "conv element", ConvElement::kF64));
  JFT_ASSIGN_OR_RETURN(desc.allow_tf32, in.boolean("conv allow tf32"));
  JFT_ASSIGN_OR_RETURN(desc.flip, in.boolean("conv flip"));
  JFT_ASSIGN_OR_RETURN(desc.x, decodeConvTensor(in));
  JFT_ASSIGN_OR_RETURN(desc.w, decodeConvTensor(in));
  JFT_ASSIGN_OR_RETURN(desc.y, decodeConvTensor(in));
  JFT_ASSIGN_OR_RETURN(desc.strides, decodeInts(in, "conv strides"));
  JFT_ASSIGN_OR_RETURN(desc.pre_padding, decodeInts(in, "conv pre padding"));
  JFT_ASSIGN_OR_RETURN(desc.post_padding, decodeInts(in, "conv post padding"));
  JFT_ASSIGN_OR_RETURN(desc.dilations, decodeInts(in, "conv dilations"));
  return desc;
}

}  // namespace

void encodeGemm(ByteWriter& out, const GemmDesc& desc) {
  encodeOperand(out, desc.a);
  encodeOperand(out, desc.b);
  out.u8(static_cast<uint8_t>(desc.d_type));
  out.i64(desc.d_ld);
  out.i64(desc.d_batch_stride);
  out.u8(static_cast<uint8_t>(desc.compute));
  out.i64(desc.batch);
  out.i64(desc.m);
  out.i64(desc.n);
  out.i64(desc.k);
  out.f64(desc.alpha);
  out.f64(desc.beta);
  out.boolean(desc.bias);
  out.u8(static_cast<uint8_t>(desc.epilogue));
}

StatusOr<GemmDesc> decodeGemm(ByteReader& in) {
  GemmDesc desc;
  JFT_ASSIGN_OR_RETURN(desc.a, decodeOperand(in));
  JFT_ASSIGN_OR_RETURN(desc.b, decodeOperand(in));
  JFT_ASSIGN_OR_RETURN(desc.d_type, decodeEnum(in, "gemm result type", GemmType::kS32));
  JFT_ASSIGN_OR_RETURN(desc.d_ld, in.i64("gemm result ld"));
  JFT_ASSIGN_OR_RETURN(desc.d_batch_stride, in.i64("gemm result batch stride"));
  JFT_ASSIGN_OR_RETURN(desc.compute, decodeEnum(in, "gemm compute", GemmCompute::kS32));
  JFT_ASSIGN_OR_RETURN(desc.batch, in.i64("gemm batch"));
  JFT_ASSIGN_OR_RETURN(desc.m, in.i64("gemm m"));
  JFT_ASSIGN_OR_RETURN(desc.n, in.i64("gemm n"));
  JFT_ASSIGN_OR_RETURN(desc.k, in.i64("gemm k"));
  JFT_ASSIGN_OR_RETURN(desc.alpha, in.f64("gemm alpha"));
  JFT_ASSIGN_OR_RETURN(desc.beta, in.f64("gemm beta"));
  JFT_ASSIGN_OR_RETURN(desc.bias, in.boolean("gemm bias"));
  JFT_ASSIGN_OR_RETURN(desc.epilogue,
                       decodeEnum(in, "gemm epilogue", GemmEpilogue::kGelu));
  return desc;
}

void encodeLibraryOp(ByteWriter& out, const LibraryOp& op) {
  static_assert(std::variant_size_v<LibraryOp> == 3,
                "a new library description needs its encoding here");
  out.u8(static_cast<uint8_t>(op.index()));
  if (const auto* fft = std::get_if<FftDesc>(&op)) encodeFft(out, *fft);
  if (const auto* solver = std::get_if<SolverDesc>(&op)) encodeSolver(out, *solver);
  if (const auto* conv = std::get_if<ConvDesc>(&op)) encodeConv(out, *conv);
}

StatusOr<LibraryOp> decodeLibraryOp(ByteReader& in) {
  JFT_ASSIGN_OR_RETURN(uint8_t index, in.enumeration("library operation kind", 2));
  switch (index) {
    case 0: {
      JFT_ASSIGN_OR_RETURN(FftDesc fft, decodeFft(in));
      return LibraryOp(std::move(fft));
    }
    case 1: {
      JFT_ASSIGN_OR_RETURN(SolverDesc solver, decodeSolver(in));
      return LibraryOp(std::move(solver));
    }
    default: {
      JFT_ASSIGN_OR_RETURN(ConvDesc conv, decodeConv(in));
      return LibraryOp(std::move(conv));
    }
  }
}

void encodeCollective(ByteWriter& out, const CollectiveDesc& desc) {
  out.u8(static_cast<uint8_t>(desc.kind));
  out.u8(static_cast<uint8_t>(desc.type));
  out.u8(static_cast<uint8_t>(desc.reduction));
  out.i64(desc.ranks);
  out.i64(desc.count);
  encodePairs(out, desc.pairs);
}

StatusOr<CollectiveDesc> decodeCollective(ByteReader& in) {
  CollectiveDesc desc;
  JFT_ASSIGN_OR_RETURN(
      desc.kind, decodeEnum(in, "collective kind", CollectiveKind::kCollectiveBroadcast));
  JFT_ASSIGN_OR_RETURN(desc.type,
                       decodeEnum(in, "collective type", CollectiveType::kF8E5M2));
  JFT_ASSIGN_OR_RETURN(desc.reduction,
                       decodeEnum(in, "collective reduction", CollectiveReduction::kMax));
  JFT_ASSIGN_OR_RETURN(desc.ranks, in.i64("collective ranks"));
  JFT_ASSIGN_OR_RETURN(desc.count, in.i64("collective count"));
  JFT_ASSIGN_OR_RETURN(desc.pairs, decodePairs(in, "collective pairs"));
  return desc;
}

void encodeCollectiveGroups(ByteWriter& out, const CollectiveGroups& groups) {
  out.u8(static_cast<uint8_t>(groups.mode));
  out.u64(groups.groups.size());
  for (const std::vector<int64_t>& group : groups.groups) encodeInts(out, group);
  encodePairs(out, groups.pairs);
}

StatusOr<CollectiveGroups> decodeCollectiveGroups(ByteReader& in) {
  CollectiveGroups groups;
  JFT_ASSIGN_OR_RETURN(groups.mode, decodeEnum(in, "collective group mode",
                                               CollectiveGroupMode::kFlattenedIds));
  JFT_ASSIGN_OR_RETURN(size_t count, in.count("collective groups", 8));
  for (size_t i = 0; i < count; ++i) {
    JFT_ASSIGN_OR_RETURN(std::vector<int64_t> group, decodeInts(in, "collective group"));
    groups.groups.push_back(std::move(group));
  }
  JFT_ASSIGN_OR_RETURN(groups.pairs, decodePairs(in, "collective permute pairs"));
  return groups;
}

}  // namespace jft::runtime
