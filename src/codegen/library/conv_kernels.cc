// Building the convolution's scratch functions (see conv_kernels.h): each is
// {ops..., return} with a one-group loop fusion over all of its ops.
#include "codegen/library/conv_kernels.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "codegen/library/scratch_kernel.h"
#include "ir/builder.h"

namespace jft::codegen::library {
namespace {

using ir::ElementType;
using ir::OpKind;
using ir::Type;
using ir::ValueId;

// Where each of `want` sits in `have` (both lists of distinct roles).
std::vector<int64_t> positions(const std::vector<int64_t>& have,
                               const std::vector<int64_t>& want) {
  std::vector<int64_t> perm;
  for (int64_t role : want)
    perm.push_back(std::find(have.begin(), have.end(), role) - have.begin());
  return perm;
}

std::vector<int64_t> extents(const ConvForm& form, const std::vector<int64_t>& roles) {
  std::vector<int64_t> dims;
  for (int64_t role : roles) dims.push_back(roleExtent(form, role));
  return dims;
}

// The gather's start index along spatial dim i for every (output position,
// window position): [out spatial..., window..., 1] of `element`.
ValueId startIndices(ScratchKernel& k, const ConvForm& form, int64_t i,
                     ElementType element, const std::vector<int64_t>& dims) {
  const int64_t s = form.spatial;
  const size_t u = static_cast<size_t>(i);
  const Type type = Type::tensor(element, dims);
  auto iota = [&](int64_t dim) {
    return k.add(OpKind::Iota, {}, type, {{"iota_dimension", dim}});
  };
  auto scaled = [&](ValueId x, int64_t factor) {
    if (factor == 1) return x;
    return k.add(OpKind::Multiply, {x, k.splat(element, factor, dims)}, type);
  };
  const int64_t dilation = form.rhs_dilation[u];
  const bool reversed = form.reversal[u];
  int64_t start = std::max<int64_t>(-form.pad_lo[u], 0);
  if (reversed) start += (form.window(i) - 1) * dilation;
  ValueId index = k.add(OpKind::Add,
                        {scaled(iota(i), form.strides[u]),
                         scaled(iota(s + i), reversed ? -dilation : dilation)},
                        type);
  if (start != 0)
    index = k.add(OpKind::Add, {index, k.splat(element, start, dims)}, type);
  return index;
}

}  // namespace

ValueId addPatchesKernel(ir::Module& module, const fusion::Fusion& owner,
                         const ir::Op& conv, const ConvForm& form,
                         const std::vector<int64_t>& m_roles,
                         const std::vector<int64_t>& k_roles,
                         std::vector<OperandTranspose>& kernels) {
  const ValueId lhs = conv.operands[0];
  const ElementType element = form.lhs.element;
  const int64_t s = form.spatial;
  const ir::ConvDimensionNumbers& dn = form.dn;
  ScratchKernel k(module, owner, conv, "patches", {lhs});

  // Roles of the dims of `value`; the lhs's batch and feature dims in their
  // order follow the spatial ones.
  std::vector<int64_t> roles;
  for (int64_t i = 0; i < s; ++i) roles.push_back(i);
  for (int64_t i = 0; i < s; ++i) roles.push_back(kWindowRole + i);
  const bool batch_first = dn.input_batch_dim < dn.input_feature_dim;
  roles.push_back(batch_first ? kBatchRole : kChannelRole);
  roles.push_back(batch_first ? kChannelRole : kBatchRole);
  ValueId value = lhs;
  if (s > 0) {
    const int64_t rank = form.lhs.rank();
    std::vector<int64_t> low(rank, 0), high(rank, 0), interior(rank, 0);
    std::vector<int64_t> padded = form.lhs.dims, slice = form.lhs.dims;
    int64_t largest = 0;
    for (int64_t i = 0; i < s; ++i) {
      const size_t u = static_cast<size_t>(i);
      const size_t d = static_cast<size_t>(dn.input_spatial_dims[u]);
      low[d] = std::max<int64_t>(form.pad_lo[u], 0);
      high[d] = std::max<int64_t>(form.pad_hi[u], 0);
      interior[d] = form.lhs_dilation[u] - 1;
      padded[d] = (padded[d] - 1) * form.lhs_dilation[u] + 1 + low[d] + high[d];
      largest = std::max(largest, padded[d]);
      slice[d] = 1;
    }
    const bool pads =
        std::any_of(low.begin(), low.end(), [](int64_t x) { return x; }) ||
        std::any_of(high.begin(), high.end(), [](int64_t x) { return x; }) ||
        std::any_of(interior.begin(), interior.end(), [](int64_t x) { return x; });
    ValueId source = lhs;
    if (pads)
      source = k.add(OpKind::Pad, {lhs, k.splat(element, 0, {})},
                     Type::tensor(element, padded),
                     {{"edge_padding_low", low},
                      {"edge_padding_high", high},
                      {"interior_padding", interior}});

    const ElementType index_type = largest < std::numeric_limits<int32_t>::max()
                                       ? ElementType::I32
                                       : ElementType::I64;
    std::vector<int64_t> index_dims;
    for (int64_t i = 0; i < 2 * s; ++i) index_dims.push_back(roleExtent(form, roles[i]));
    index_dims.push_back(1);
    std::vector<ValueId> starts;
    for (int64_t i = 0; i < s; ++i)
      starts.push_back(startIndices(k, form, i, index_type, index_dims));
    std::vector<int64_t> all_dims = index_dims;
    all_dims.back() = s;
    const ValueId indices =
        s == 1 ? starts[0]
               : k.add(OpKind::Concatenate, starts, Type::tensor(index_type, all_dims),
                       {{"dimension", 2 * s}});

    ir::GatherDimensionNumbers gather;
    gather.offset_dims = {2 * s, 2 * s + 1};
    gather.collapsed_slice_dims = dn.input_spatial_dims;
    std::sort(gather.collapsed_slice_dims.begin(), gather.collapsed_slice_dims.end());
    gather.start_index_map = dn.input_spatial_dims;
    gather.index_vector_dim = 2 * s;
    std::vector<int64_t> gathered(index_dims.begin(), index_dims.end() - 1);
    for (int64_t d = 0; d < rank; ++d)  // the offset dims, in operand order
      if (d == dn.input_batch_dim || d == dn.input_feature_dim)
        gathered.push_back(form.lhs.dims[static_cast<size_t>(d)]);
    value = k.add(OpKind::Gather, {source, indices}, Type::tensor(element, gathered),
                  {{"dimension_numbers", gather},
                   {"slice_sizes", slice},
                   {"indices_are_sorted", false}});
  } else {
    roles.clear();
    roles.push_back(batch_first ? kBatchRole : kChannelRole);
    roles.push_back(batch_first ? kChannelRole : kBatchRole);
  }

  // Split the grouped dim into [group, per group].
  std::vector<int64_t> order = m_roles;
  order.insert(order.end(), k_roles.begin(), k_roles.end());
  if (form.groups() > 1) {
    const int64_t grouped = form.batch_groups > 1 ? kBatchRole : kChannelRole;
    const auto at = std::find(roles.begin(), roles.end(), grouped);
    roles.insert(at, kGroupRole);
    value = k.add(OpKind::Reshape, {value}, Type::tensor(element, extents(form, roles)));
    order.insert(order.begin(), kGroupRole);
  }
  value = k.transpose(value, positions(roles, order));
  if (value == lhs)  // the lhs already is P: a copy keeps P a value of its own
    value = k.add(OpKind::Reshape, {lhs}, form.lhs);
  k.finish(value, kernels);
  return value;
}

ValueId addRhsKernel(ir::Module& module, const fusion::Fusion& owner, const ir::Op& conv,
                     const std::vector<int64_t>& permutation,
                     std::vector<OperandTranspose>& kernels) {
  ScratchKernel k(module, owner, conv, "rhs_transpose", {conv.operands[1]});
  const ValueId value = k.transpose(conv.operands[1], permutation);
  k.finish(value, kernels);
  return value;
}

ValueId addRhsFilterKernel(ir::Module& module, const fusion::Fusion& owner,
                           const ir::Op& conv, const std::vector<int64_t>& reverse,
                           const std::vector<int64_t>& permutation,
                           std::vector<OperandTranspose>& kernels) {
  ScratchKernel k(module, owner, conv, "rhs_filter", {conv.operands[1]});
  ValueId value = conv.operands[1];
  if (!reverse.empty())
    value =
        k.add(OpKind::Reverse, {value}, module.typeOf(value), {{"dimensions", reverse}});
  if (!permutation.empty()) value = k.transpose(value, permutation);
  k.finish(value, kernels);
  return value;
}

ValueId addResultKernel(ir::Module& module, const fusion::Fusion& owner,
                        const ir::Op& conv, const std::vector<int64_t>& order,
                        std::vector<OperandTranspose>& kernels) {
  const Type out = module.typeOf(conv.results[0]);  // a copy: newValue moves the table
  std::vector<int64_t> dims;
  for (int64_t d : order) dims.push_back(out.dims[static_cast<size_t>(d)]);
  const ValueId temp = module.newValue(Type::tensor(out.element, dims));
  ScratchKernel k(module, owner, conv, "result_transpose", {temp});
  // Result dim j is the temp's dim where `order` names j.
  std::vector<int64_t> all(order.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
  const ValueId result = conv.results[0];
  k.transpose(temp, positions(order, all), result);
  k.finish(result, kernels);
  return temp;
}

ValueId addOutputKernel(ir::Module& module, const fusion::Fusion& owner,
                        const ir::Op& conv, const ConvForm& form,
                        std::vector<OperandTranspose>& kernels) {
  const ElementType element = form.out.element;
  std::vector<int64_t> roles = {kBatchRole};
  for (int64_t i = 0; i < form.spatial; ++i) roles.push_back(i);
  std::vector<int64_t> temp_roles = roles;
  if (form.groups() > 1) {
    temp_roles.insert(temp_roles.begin(), kGroupRole);
    temp_roles.push_back(kFeatureRole);
  } else {
    temp_roles.push_back(kAllFeaturesRole);
  }
  const ValueId temp = module.newValue(Type::tensor(element, extents(form, temp_roles)));
  ScratchKernel k(module, owner, conv, "output_transpose", {temp});
  ValueId value = temp;
  if (form.groups() > 1) {
    std::vector<int64_t> split = roles;
    split.push_back(kGroupRole);
    split.push_back(kFeatureRole);
    value = k.transpose(temp, positions(temp_roles, split));
    roles.push_back(kAllFeaturesRole);
    value = k.add(OpKind::Reshape, {value}, Type::tensor(element, extents(form, roles)));
  } else {
    roles = temp_roles;
  }
  // The result's dims as roles.
  std::vector<int64_t> out_roles(static_cast<size_t>(form.out.rank()));
  out_roles[static_cast<size_t>(form.dn.output_batch_dim)] = kBatchRole;
  out_roles[static_cast<size_t>(form.dn.output_feature_dim)] = kAllFeaturesRole;
  for (int64_t i = 0; i < form.spatial; ++i)
    out_roles[static_cast<size_t>(form.dn.output_spatial_dims[static_cast<size_t>(i)])] =
        i;
  const ValueId result = conv.results[0];
  k.transpose(value, positions(roles, out_roles), result);
  k.finish(result, kernels);
  return temp;
}

}  // namespace jft::codegen::library
