// Library description encodings.
#include "runtime/library_codec.h"

namespace jft::runtime {
namespace {

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

// Each description's fields are listed once, in encoding order, by a
// function template that `Writer` runs to put them and `Reader` to take them
// back (naming each in its errors), so the two directions cannot drift apart.
struct Writer {
  ByteWriter& out;
  Status i64(const int64_t& value, const char*) {
    out.i64(value);
    return Status::ok();
  }
  Status f64(const double& value, const char*) {
    out.f64(value);
    return Status::ok();
  }
  Status flag(const bool& value, const char*) {
    out.boolean(value);
    return Status::ok();
  }
  template <typename E>
  Status enumeration(const E& value, const char*, E) {
    out.u8(static_cast<uint8_t>(value));
    return Status::ok();
  }
  Status ints(const std::vector<int64_t>& values, const char*) {
    out.ints(values);
    return Status::ok();
  }
  Status pairs(const std::vector<std::pair<int64_t, int64_t>>& values, const char*) {
    encodePairs(out, values);
    return Status::ok();
  }
  Status intLists(const std::vector<std::vector<int64_t>>& lists, const char*,
                  const char*) {
    out.u64(lists.size());
    for (const std::vector<int64_t>& list : lists) out.ints(list);
    return Status::ok();
  }
};

struct Reader {
  ByteReader& in;
  Status i64(int64_t& value, const char* what) { return take(value, in.i64(what)); }
  Status f64(double& value, const char* what) { return take(value, in.f64(what)); }
  Status flag(bool& value, const char* what) { return take(value, in.boolean(what)); }
  template <typename E>
  Status enumeration(E& value, const char* what, E last) {
    return take(value, decodeEnum(in, what, last));
  }
  Status ints(std::vector<int64_t>& values, const char* what) {
    return take(values, in.i64s(what));
  }
  Status pairs(std::vector<std::pair<int64_t, int64_t>>& values, const char* what) {
    return take(values, decodePairs(in, what));
  }
  // `what` names the count, `each` every list.
  Status intLists(std::vector<std::vector<int64_t>>& lists, const char* what,
                  const char* each) {
    JFT_ASSIGN_OR_RETURN(size_t count, in.count(what, 8));
    for (size_t i = 0; i < count; ++i) {
      JFT_ASSIGN_OR_RETURN(std::vector<int64_t> list, in.i64s(each));
      lists.push_back(std::move(list));
    }
    return Status::ok();
  }

 private:
  template <typename T>
  static Status take(T& value, StatusOr<T> read) {
    if (!read.isOk()) return read.status();
    value = std::move(read).value();
    return Status::ok();
  }
};

template <typename IO, typename Operand>
Status operandFields(IO& io, Operand& operand) {
  JFT_RETURN_IF_ERROR(io.enumeration(operand.type, "gemm operand type", GemmType::kS32));
  JFT_RETURN_IF_ERROR(io.flag(operand.transpose, "gemm transpose"));
  JFT_RETURN_IF_ERROR(io.i64(operand.ld, "gemm ld"));
  return io.i64(operand.batch_stride, "gemm batch stride");
}

template <typename IO, typename Desc>
Status gemmFields(IO& io, Desc& desc) {
  JFT_RETURN_IF_ERROR(operandFields(io, desc.a));
  JFT_RETURN_IF_ERROR(operandFields(io, desc.b));
  JFT_RETURN_IF_ERROR(io.enumeration(desc.d_type, "gemm result type", GemmType::kS32));
  JFT_RETURN_IF_ERROR(io.i64(desc.d_ld, "gemm result ld"));
  JFT_RETURN_IF_ERROR(io.i64(desc.d_batch_stride, "gemm result batch stride"));
  JFT_RETURN_IF_ERROR(io.enumeration(desc.compute, "gemm compute", GemmCompute::kS32));
  JFT_RETURN_IF_ERROR(io.i64(desc.batch, "gemm batch"));
  JFT_RETURN_IF_ERROR(io.i64(desc.m, "gemm m"));
  JFT_RETURN_IF_ERROR(io.i64(desc.n, "gemm n"));
  JFT_RETURN_IF_ERROR(io.i64(desc.k, "gemm k"));
  JFT_RETURN_IF_ERROR(io.f64(desc.alpha, "gemm alpha"));
  JFT_RETURN_IF_ERROR(io.f64(desc.beta, "gemm beta"));
  JFT_RETURN_IF_ERROR(io.flag(desc.bias, "gemm bias"));
  return io.enumeration(desc.epilogue, "gemm epilogue", GemmEpilogue::kGelu);
}

template <typename IO, typename Desc>
Status fftFields(IO& io, Desc& desc) {
  JFT_RETURN_IF_ERROR(io.enumeration(desc.kind, "fft kind", FftKind::kIrfft));
  JFT_RETURN_IF_ERROR(io.flag(desc.f64, "fft f64"));
  JFT_RETURN_IF_ERROR(io.ints(desc.lengths, "fft lengths"));
  return io.i64(desc.batch, "fft batch");
}

template <typename IO, typename Desc>
Status solverFields(IO& io, Desc& desc) {
  JFT_RETURN_IF_ERROR(
      io.enumeration(desc.kind, "solver kind", SolverKind::kCholeskyUpdate));
  JFT_RETURN_IF_ERROR(io.enumeration(desc.type, "solver type", SolverType::kS32));
  JFT_RETURN_IF_ERROR(io.i64(desc.batch, "solver batch"));
  JFT_RETURN_IF_ERROR(io.i64(desc.m, "solver m"));
  JFT_RETURN_IF_ERROR(io.i64(desc.n, "solver n"));
  JFT_RETURN_IF_ERROR(io.i64(desc.k, "solver k"));
  JFT_RETURN_IF_ERROR(io.i64(desc.reflector_cols, "solver reflector columns"));
  JFT_RETURN_IF_ERROR(io.flag(desc.lower, "solver lower"));
  JFT_RETURN_IF_ERROR(io.flag(desc.left_side, "solver left side"));
  JFT_RETURN_IF_ERROR(
      io.enumeration(desc.transpose, "solver transpose", SolverTranspose::kAdjoint));
  JFT_RETURN_IF_ERROR(io.flag(desc.unit_diagonal, "solver unit diagonal"));
  JFT_RETURN_IF_ERROR(
      io.enumeration(desc.algorithm, "solver algorithm", EigAlgorithm::kJacobi));
  JFT_RETURN_IF_ERROR(io.flag(desc.full_matrices, "solver full matrices"));
  JFT_RETURN_IF_ERROR(io.flag(desc.compute_uv, "solver compute uv"));
  return io.flag(desc.eigenvectors, "solver eigenvectors");
}

template <typename IO, typename Tensor>
Status convTensorFields(IO& io, Tensor& tensor) {
  JFT_RETURN_IF_ERROR(io.ints(tensor.dims, "conv tensor dims"));
  return io.ints(tensor.strides, "conv tensor strides");
}

template <typename IO, typename Desc>
Status convFields(IO& io, Desc& desc) {
  JFT_RETURN_IF_ERROR(io.enumeration(desc.kind, "conv kind", ConvKind::kBackwardFilter));
  JFT_RETURN_IF_ERROR(io.enumeration(desc.element, "conv element", ConvElement::kF64));
  JFT_RETURN_IF_ERROR(io.flag(desc.allow_tf32, "conv allow tf32"));
  JFT_RETURN_IF_ERROR(io.flag(desc.flip, "conv flip"));
  JFT_RETURN_IF_ERROR(convTensorFields(io, desc.x));
  JFT_RETURN_IF_ERROR(convTensorFields(io, desc.w));
  JFT_RETURN_IF_ERROR(convTensorFields(io, desc.y));
  JFT_RETURN_IF_ERROR(io.ints(desc.strides, "conv strides"));
  JFT_RETURN_IF_ERROR(io.ints(desc.pre_padding, "conv pre padding"));
  JFT_RETURN_IF_ERROR(io.ints(desc.post_padding, "conv post padding"));
  return io.ints(desc.dilations, "conv dilations");
}

template <typename IO, typename Desc>
Status collectiveFields(IO& io, Desc& desc) {
  JFT_RETURN_IF_ERROR(
      io.enumeration(desc.kind, "collective kind", CollectiveKind::kCollectiveBroadcast));
  JFT_RETURN_IF_ERROR(
      io.enumeration(desc.type, "collective type", CollectiveType::kF8E5M2));
  JFT_RETURN_IF_ERROR(
      io.enumeration(desc.reduction, "collective reduction", CollectiveReduction::kMax));
  JFT_RETURN_IF_ERROR(io.i64(desc.ranks, "collective ranks"));
  JFT_RETURN_IF_ERROR(io.i64(desc.count, "collective count"));
  return io.pairs(desc.pairs, "collective pairs");
}

template <typename IO, typename Groups>
Status collectiveGroupsFields(IO& io, Groups& groups) {
  JFT_RETURN_IF_ERROR(io.enumeration(groups.mode, "collective group mode",
                                     CollectiveGroupMode::kFlattenedIds));
  JFT_RETURN_IF_ERROR(
      io.intLists(groups.groups, "collective groups", "collective group"));
  return io.pairs(groups.pairs, "collective permute pairs");
}

// The two directions of one field list.
template <typename Desc>
void encodeWith(ByteWriter& out, const Desc& desc,
                Status (*fields)(Writer&, const Desc&)) {
  Writer writer{out};
  (void)fields(writer, desc);  // writing cannot fail
}

template <typename Desc>
StatusOr<Desc> decodeWith(ByteReader& in, Status (*fields)(Reader&, Desc&)) {
  Reader reader{in};
  Desc desc;
  JFT_RETURN_IF_ERROR(fields(reader, desc));
  return desc;
}

}  // namespace

void encodeGemm(ByteWriter& out, const GemmDesc& desc) {
  encodeWith(out, desc, &gemmFields<Writer, const GemmDesc>);
}

StatusOr<GemmDesc> decodeGemm(ByteReader& in) {
  return decodeWith(in, &gemmFields<Reader, GemmDesc>);
}

void encodeLibraryOp(ByteWriter& out, const LibraryOp& op) {
  static_assert(std::variant_size_v<LibraryOp> == 3,
                "a new library description needs its encoding here");
  out.u8(static_cast<uint8_t>(op.index()));
  if (const auto* fft = std::get_if<FftDesc>(&op))
    encodeWith(out, *fft, &fftFields<Writer, const FftDesc>);
  if (const auto* solver = std::get_if<SolverDesc>(&op))
    encodeWith(out, *solver, &solverFields<Writer, const SolverDesc>);
  if (const auto* conv = std::get_if<ConvDesc>(&op))
    encodeWith(out, *conv, &convFields<Writer, const ConvDesc>);
}

StatusOr<LibraryOp> decodeLibraryOp(ByteReader& in) {
  JFT_ASSIGN_OR_RETURN(uint8_t index, in.enumeration("library operation kind", 2));
  switch (index) {
    case 0: {
      JFT_ASSIGN_OR_RETURN(FftDesc fft, decodeWith(in, &fftFields<Reader, FftDesc>));
      return LibraryOp(std::move(fft));
    }
    case 1: {
      JFT_ASSIGN_OR_RETURN(SolverDesc solver,
                           decodeWith(in, &solverFields<Reader, SolverDesc>));
      return LibraryOp(std::move(solver));
    }
    default: {
      JFT_ASSIGN_OR_RETURN(ConvDesc conv, decodeWith(in, &convFields<Reader, ConvDesc>));
      return LibraryOp(std::move(conv));
    }
  }
}

void encodeCollective(ByteWriter& out, const CollectiveDesc& desc) {
  encodeWith(out, desc, &collectiveFields<Writer, const CollectiveDesc>);
}

StatusOr<CollectiveDesc> decodeCollective(ByteReader& in) {
  return decodeWith(in, &collectiveFields<Reader, CollectiveDesc>);
}

void encodeCollectiveGroups(ByteWriter& out, const CollectiveGroups& groups) {
  encodeWith(out, groups, &collectiveGroupsFields<Writer, const CollectiveGroups>);
}

StatusOr<CollectiveGroups> decodeCollectiveGroups(ByteReader& in) {
  return decodeWith(in, &collectiveGroupsFields<Reader, CollectiveGroups>);
}

}  // namespace jft::runtime
