// Shape helpers.
#include "pjrt/shape.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <string>

#include "compiler/entry_layouts.h"
#include "pjrt/element_types.h"

namespace jft::pjrt {

Status validateDims(const int64_t* dims, size_t numDims) {
  if (numDims > kMaxRank) {
    return invalidArgument("rank " + std::to_string(numDims) +
                           " exceeds the maximum of " + std::to_string(kMaxRank));
  }
  if (numDims > 0 && dims == nullptr)
    return invalidArgument("dims is null but num_dims is " + std::to_string(numDims));
  for (size_t i = 0; i < numDims; ++i) {
    if (dims[i] < 0) {
      return invalidArgument("dimension " + std::to_string(i) + " is negative (" +
                             std::to_string(dims[i]) + ")");
    }
  }
  return Status::ok();
}

StatusOr<uint64_t> denseByteSize(std::span<const int64_t> dims, uint64_t elementBytes) {
  constexpr uint64_t kLimit = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  uint64_t bytes = elementBytes;
  for (int64_t dim : dims) {
    if (dim < 0) return invalidArgument("negative dimension " + std::to_string(dim));
    if (dim == 0) return uint64_t{0};
  }
  for (int64_t dim : dims) {
    uint64_t extent = static_cast<uint64_t>(dim);
    if (bytes != 0 && extent > kLimit / bytes) {
      return invalidArgument("the array's byte size overflows 63 bits");
    }
    bytes *= extent;
  }
  return bytes;
}

StatusOr<DenseShape> denseShape(int type, const int64_t* dims, size_t numDims,
                                const std::string& context) {
  auto elementBytes = transferableElementBytes(type);
  if (!elementBytes.isOk()) return elementBytes.status().withContext(context);
  Status dimsOk = validateDims(dims, numDims);
  if (!dimsOk.isOk()) return dimsOk.withContext(context);
  DenseShape shape;
  shape.element_bytes = *elementBytes;
  shape.dims.assign(dims, dims + numDims);
  auto bytes = denseByteSize(shape.dims, shape.element_bytes);
  if (!bytes.isOk()) return bytes.status().withContext(context);
  shape.bytes = *bytes;
  return shape;
}

std::vector<int64_t> denseByteStrides(std::span<const int64_t> dims,
                                      uint64_t elementBytes) {
  std::vector<int64_t> strides(dims.size());
  int64_t stride = static_cast<int64_t>(elementBytes);
  for (size_t i = dims.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= dims[i] > 0 ? dims[i] : 1;
  }
  return strides;
}

bool stridesAreDense(std::span<const int64_t> dims, std::span<const int64_t> byteStrides,
                     uint64_t elementBytes) {
  if (byteStrides.size() != dims.size()) return false;
  for (int64_t dim : dims) {
    if (dim == 0) return true;
  }
  std::vector<int64_t> dense = denseByteStrides(dims, elementBytes);
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] != 1 && byteStrides[i] != dense[i]) return false;
  }
  return true;
}

bool isDefaultLayout(const PJRT_Buffer_MemoryLayout* layout,
                     std::span<const int64_t> dims, uint64_t elementBytes) {
  if (layout == nullptr) return true;
  if (layout->type == PJRT_Buffer_MemoryLayout_Type_Tiled) {
    const auto& tiled = layout->tiled;
    if (tiled.num_tiles != 0) return false;
    if (tiled.minor_to_major_size != dims.size()) return false;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (tiled.minor_to_major[i] != static_cast<int64_t>(dims.size() - 1 - i))
        return false;
    }
    return true;
  }
  const auto& strides = layout->strides;
  if (strides.num_byte_strides != dims.size()) return false;
  if (strides.num_byte_strides > 0 && strides.byte_strides == nullptr) return false;
  return stridesAreDense(dims, {strides.byte_strides, strides.num_byte_strides},
                         elementBytes);
}

void packStrided(const void* src, std::span<const int64_t> dims,
                 std::span<const int64_t> byteStrides, uint64_t elementBytes, void* dst) {
  for (int64_t dim : dims) {
    if (dim == 0) return;
  }
  const size_t rank = dims.size();
  std::vector<int64_t> index(rank, 0);
  auto* out = static_cast<unsigned char*>(dst);
  const auto* base = static_cast<const unsigned char*>(src);
  for (;;) {
    int64_t offset = 0;
    for (size_t i = 0; i < rank; ++i) offset += index[i] * byteStrides[i];
    std::memcpy(out, base + offset, elementBytes);
    out += elementBytes;
    size_t axis = rank;
    while (axis > 0) {
      --axis;
      if (++index[axis] < dims[axis]) break;
      index[axis] = 0;
      if (axis == 0) return;
    }
    if (rank == 0) return;
  }
}

namespace {

// The order of dense byte strides, minor to major, or nothing when they
// leave gaps or overlap.
std::optional<std::vector<int64_t>> strideOrder(std::span<const int64_t> dims,
                                                std::span<const int64_t> byteStrides,
                                                uint64_t elementBytes) {
  std::vector<int64_t> moving;  // dims of extent > 1, minor to major by stride
  for (size_t d = 0; d < dims.size(); ++d)
    if (dims[d] != 1) moving.push_back(static_cast<int64_t>(d));
  std::stable_sort(moving.begin(), moving.end(), [&](int64_t a, int64_t b) {
    return byteStrides[static_cast<size_t>(a)] < byteStrides[static_cast<size_t>(b)];
  });
  int64_t expected = static_cast<int64_t>(elementBytes);
  for (int64_t d : moving) {
    if (byteStrides[static_cast<size_t>(d)] != expected) return std::nullopt;
    expected *= dims[static_cast<size_t>(d)];
  }
  // Extent-1 dims go where row-major would put them relative to each other,
  // outermost; the order stays row-major when the moving dims are.
  std::vector<int64_t> order = moving;
  for (size_t d = dims.size(); d-- > 0;)
    if (dims[d] == 1) order.push_back(static_cast<int64_t>(d));
  if (std::is_sorted(moving.rbegin(), moving.rend()))
    return compiler::rowMajor(dims.size());
  return order;
}

}  // namespace

StatusOr<std::vector<int64_t>> layoutOrder(const PJRT_Buffer_MemoryLayout* layout,
                                           std::span<const int64_t> dims,
                                           uint64_t elementBytes,
                                           const std::string& context) {
  if (layout == nullptr) return std::vector<int64_t>();
  std::vector<int64_t> order;
  if (layout->type == PJRT_Buffer_MemoryLayout_Type_Tiled) {
    const auto& tiled = layout->tiled;
    if (tiled.num_tiles != 0)
      return unimplemented(context + ": tiled layouts are not supported (" +
                           std::to_string(tiled.num_tiles) + " tiles)");
    if (tiled.minor_to_major_size > 0 && tiled.minor_to_major == nullptr)
      return invalidArgument(context + ": the layout's minor_to_major is null");
    order.assign(tiled.minor_to_major, tiled.minor_to_major + tiled.minor_to_major_size);
    if (!isPermutation(order, dims.size()))
      return invalidArgument(context +
                             ": the layout's minor_to_major is not a "
                             "permutation of the " +
                             std::to_string(dims.size()) + " dims");
  } else {
    const auto& strides = layout->strides;
    if (strides.num_byte_strides != dims.size())
      return invalidArgument(context + ": " + std::to_string(strides.num_byte_strides) +
                             " byte strides for " + std::to_string(dims.size()) +
                             " dims");
    if (strides.num_byte_strides > 0 && strides.byte_strides == nullptr)
      return invalidArgument(context + ": the layout's byte_strides is null");
    for (int64_t dim : dims)
      if (dim == 0) return std::vector<int64_t>();
    std::optional<std::vector<int64_t>> found =
        strideOrder(dims, {strides.byte_strides, strides.num_byte_strides}, elementBytes);
    if (!found)
      return unimplemented(context +
                           ": the byte strides do not address a dense array in any order "
                           "of its dims; make it contiguous first (e.g. "
                           "torch.Tensor.contiguous())");
    order = std::move(*found);
  }
  for (int64_t dim : dims)
    if (dim == 0) return std::vector<int64_t>();
  return canonicalOrder(order);
}

namespace {

bool rowMajorOrEmpty(std::span<const int64_t> order) {
  for (size_t i = 0; i < order.size(); ++i)
    if (order[i] != static_cast<int64_t>(order.size() - 1 - i)) return false;
  return true;
}

}  // namespace

bool isPermutation(std::span<const int64_t> order, size_t rank) {
  if (order.size() != rank) return false;
  std::vector<bool> seen(rank, false);
  for (int64_t d : order) {
    if (d < 0 || static_cast<size_t>(d) >= rank || seen[static_cast<size_t>(d)])
      return false;
    seen[static_cast<size_t>(d)] = true;
  }
  return true;
}

std::vector<int64_t> canonicalOrder(std::span<const int64_t> minorToMajor) {
  if (rowMajorOrEmpty(minorToMajor)) return {};
  return {minorToMajor.begin(), minorToMajor.end()};
}

bool sameOrder(std::span<const int64_t> a, std::span<const int64_t> b) {
  if (rowMajorOrEmpty(a) || rowMajorOrEmpty(b))
    return rowMajorOrEmpty(a) && rowMajorOrEmpty(b);
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

std::string layoutText(std::span<const int64_t> minorToMajor, size_t rank) {
  return compiler::layoutText(
      minorToMajor.empty()
          ? compiler::rowMajor(rank)
          : compiler::MinorToMajor(minorToMajor.begin(), minorToMajor.end()));
}

std::vector<int64_t> orderedByteStrides(std::span<const int64_t> dims,
                                        std::span<const int64_t> minorToMajor,
                                        uint64_t elementBytes) {
  if (minorToMajor.empty()) return denseByteStrides(dims, elementBytes);
  std::vector<int64_t> strides(dims.size());
  int64_t stride = static_cast<int64_t>(elementBytes);
  for (int64_t d : minorToMajor) {
    strides[static_cast<size_t>(d)] = stride;
    stride *= dims[static_cast<size_t>(d)] > 0 ? dims[static_cast<size_t>(d)] : 1;
  }
  return strides;
}

void repackOrder(const void* src, std::span<const int64_t> dims,
                 std::span<const int64_t> from, std::span<const int64_t> to,
                 uint64_t elementBytes, void* dst) {
  // Read with `from`'s strides, walked in `to`'s order major to minor.
  const std::vector<int64_t> source = orderedByteStrides(dims, from, elementBytes);
  std::vector<int64_t> order(to.begin(), to.end());
  if (order.empty()) order = compiler::rowMajor(dims.size());
  std::vector<int64_t> walked_dims, walked_strides;
  for (size_t i = order.size(); i-- > 0;) {
    const auto d = static_cast<size_t>(order[i]);
    walked_dims.push_back(dims[d]);
    walked_strides.push_back(source[d]);
  }
  packStrided(src, walked_dims, walked_strides, elementBytes, dst);
}

}  // namespace jft::pjrt
