// Shape helpers.
#include "pjrt/shape.h"

#include <cstring>
#include <limits>
#include <string>

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

}  // namespace jft::pjrt
