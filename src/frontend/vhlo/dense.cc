#include "frontend/vhlo/dense.h"

#include <limits>

#include "frontend/vhlo/types.h"

namespace jft::frontend::vhlo {
namespace {

StatusOr<int64_t> countElements(const MType& shaped, const OpSite& site) {
  int64_t n = 1;
  for (int64_t d : shaped.shape) {
    if (d == kDynamicDim || d < 0)
      return site.invalid("dense attribute of dynamic type " + describeType(&shaped));
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d)
      return site.invalid("dense attribute of type " + describeType(&shaped) +
                          " is too large");
    n *= d;
  }
  return n;
}

// The element type and count of a dense attribute: DenseElements carries a
// shaped type, DenseArray its element type (the count follows from the data).
struct DenseShape {
  const MType* element = nullptr;
  int64_t num_elements = 0;
};

StatusOr<int64_t> integerStorageBytes(const MType& element, const OpSite& site) {
  if (element.kind == MType::Kind::Index) return 8;
  if (element.kind == MType::Kind::Integer && element.width >= 1 && element.width <= 64)
    return (element.width + 7) / 8;
  return site.invalid("expected integer elements, got " + describeType(&element));
}

StatusOr<DenseShape> denseShape(const MAttr& attr, const OpSite& site) {
  if (!attr.type) return site.invalid("dense attribute without a type");
  if (attr.kind == MAttr::Kind::DenseElements) {
    if (attr.type->kind != MType::Kind::RankedTensor || attr.type->elements.empty())
      return site.invalid("dense attribute of non-tensor type " +
                          describeType(attr.type.get()));
    JFT_ASSIGN_OR_RETURN(int64_t n, countElements(*attr.type, site));
    return DenseShape{attr.type->elements[0].get(), n};
  }
  if (attr.kind == MAttr::Kind::DenseArray) {
    const MType* element = attr.type.get();
    // DenseBoolArrayAttr keeps one byte per element.
    int64_t bytes = 1;
    if (!(element->kind == MType::Kind::Integer && element->width == 1)) {
      JFT_ASSIGN_OR_RETURN(bytes, integerStorageBytes(*element, site));
    }
    if (attr.data.size() % bytes != 0)
      return site.invalid("dense array data is not a whole number of elements");
    return DenseShape{element, static_cast<int64_t>(attr.data.size()) / bytes};
  }
  return site.invalid("expected a dense elements attribute");
}

bool isI1(const MType& element) {
  return element.kind == MType::Kind::Integer && element.width == 1;
}

int64_t readLittleEndian(const uint8_t* p, int64_t bytes, bool is_signed) {
  uint64_t v = 0;
  for (int64_t i = 0; i < bytes; ++i) v |= uint64_t{p[i]} << (8 * i);
  if (is_signed && bytes < 8 && (v >> (8 * bytes - 1)) & 1)
    v |= ~uint64_t{0} << (8 * bytes);
  return static_cast<int64_t>(v);
}

}  // namespace

StatusOr<std::vector<uint8_t>> expandStorage(std::span<const uint8_t> raw,
                                             int64_t num_elements, int64_t element_bytes,
                                             const OpSite& site) {
  if (element_bytes <= 0 || num_elements < 0)
    return site.invalid("malformed dense storage");
  if (num_elements > kMaxDenseBytes / element_bytes)
    return site.error(StatusCode::kResourceExhausted,
                      "dense literal of " + std::to_string(num_elements) +
                          " elements is too large to import");
  const auto total = static_cast<size_t>(num_elements * element_bytes);
  if (raw.size() == total) return std::vector<uint8_t>(raw.begin(), raw.end());
  // A splat: one element standing for all, however many (none included: MLIR
  // stores an empty tensor's splat with its one element too).
  if (raw.size() == static_cast<size_t>(element_bytes) && num_elements != 1) {
    std::vector<uint8_t> out(total);
    for (size_t i = 0; i < total; i += raw.size())
      std::copy(raw.begin(), raw.end(), out.begin() + static_cast<ptrdiff_t>(i));
    return out;
  }
  return site.invalid("dense storage of " + std::to_string(raw.size()) +
                      " bytes does not hold " + std::to_string(num_elements) +
                      " elements of " + std::to_string(element_bytes) + " bytes");
}

StatusOr<std::vector<uint8_t>> expandBoolStorage(std::span<const uint8_t> raw,
                                                 int64_t num_elements,
                                                 const OpSite& site) {
  if (num_elements < 0) return site.invalid("malformed dense storage");
  if (num_elements > kMaxDenseBytes)
    return site.error(StatusCode::kResourceExhausted,
                      "dense literal of " + std::to_string(num_elements) +
                          " elements is too large to import");
  const auto n = static_cast<size_t>(num_elements);
  std::vector<uint8_t> out(n);
  if (raw.size() == n) {
    for (size_t i = 0; i < n; ++i) out[i] = raw[i] != 0;
    return out;
  }
  if (raw.size() == 1) {
    std::fill(out.begin(), out.end(), raw[0] != 0);
    return out;
  }
  // Still bit-packed (a producer that kept the bytecode form): unambiguous
  // only when neither of the forms above fits.
  if (raw.size() == (n + 7) / 8) {
    for (size_t i = 0; i < n; ++i) out[i] = (raw[i / 8] >> (i % 8)) & 1;
    return out;
  }
  return site.invalid("i1 dense storage of " + std::to_string(raw.size()) +
                      " bytes does not hold " + std::to_string(n) + " elements");
}

StatusOr<ir::DenseElements> decodeDense(const MAttr& attr, const OpSite& site) {
  if (attr.kind != MAttr::Kind::DenseElements)
    return site.invalid("expected a dense elements attribute");
  JFT_ASSIGN_OR_RETURN(ir::Type type, convertType(attr.type.get(), site));
  if (!type.isTensor()) return site.invalid("dense attribute of non-tensor type");
  JFT_ASSIGN_OR_RETURN(DenseShape shape, denseShape(attr, site));
  const bool pred = ir::isPred(type.element);
  const int64_t element_bytes = ir::storageBytes(type.element);
  // MLIR's splat (one element standing for all) stays one element, whatever
  // the element count (convertType has checked that its byte size fits).
  if (shape.num_elements > 1 && attr.data.size() == static_cast<size_t>(element_bytes)) {
    std::vector<uint8_t> element(attr.data.begin(), attr.data.end());
    if (pred) element[0] = element[0] != 0;
    return ir::DenseElements::makeSplat(std::move(type), std::move(element));
  }
  ir::DenseElements dense;
  if (pred) {
    JFT_ASSIGN_OR_RETURN(dense.bytes,
                         expandBoolStorage(attr.data, shape.num_elements, site));
  } else {
    JFT_ASSIGN_OR_RETURN(
        dense.bytes, expandStorage(attr.data, shape.num_elements, element_bytes, site));
  }
  dense.type = std::move(type);
  return dense;
}

StatusOr<std::vector<int64_t>> decodeInts(const MAttr& attr, const OpSite& site) {
  JFT_ASSIGN_OR_RETURN(DenseShape shape, denseShape(attr, site));
  std::vector<uint8_t> bytes;
  int64_t element_bytes = 1;
  bool is_signed = true;
  if (isI1(*shape.element)) {
    JFT_ASSIGN_OR_RETURN(bytes, expandBoolStorage(attr.data, shape.num_elements, site));
    is_signed = false;
  } else {
    JFT_ASSIGN_OR_RETURN(element_bytes, integerStorageBytes(*shape.element, site));
    JFT_ASSIGN_OR_RETURN(
        bytes, expandStorage(attr.data, shape.num_elements, element_bytes, site));
    is_signed = shape.element->signedness != MType::Signedness::Unsigned;
  }
  std::vector<int64_t> values(static_cast<size_t>(shape.num_elements));
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = readLittleEndian(&bytes[i * element_bytes], element_bytes, is_signed);
  return values;
}

StatusOr<std::vector<bool>> decodeBools(const MAttr& attr, const OpSite& site) {
  JFT_ASSIGN_OR_RETURN(DenseShape shape, denseShape(attr, site));
  if (!isI1(*shape.element))
    return site.invalid("expected i1 elements, got " + describeType(shape.element));
  JFT_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes,
                       expandBoolStorage(attr.data, shape.num_elements, site));
  return std::vector<bool>(bytes.begin(), bytes.end());
}

}  // namespace jft::frontend::vhlo
