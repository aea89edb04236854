// convolution -> patches kernel (none for a 1x1 convolution whose lhs reads
// as the patch matrix), maybe an rhs transpose, one (batched) GEMM per call,
// maybe an output transpose.
//
// With groups G (feature or batch groups), per group g:
//   D[g][m, n] = sum_k P[g][m, k] * W[g][k, n]
// m runs over the batch (per batch group) and output spatial positions, k
// over the window positions and input features (per feature group), n over
// the output features of the group. The k order is the rhs's memory order,
// so the rhs is read in place when its output feature dim is outermost or
// innermost. The m order is the result's memory order, so the product
// writes the result in place when the output feature dim is innermost (one
// group, or a single output position) or outermost (the product computed
// transposed, D^T = W^T P^T); otherwise it writes a temp that a kernel moves
// into place.
#include "codegen/library/convolution_call.h"

#include <algorithm>
#include <optional>

#include "codegen/library/conv_form.h"
#include "codegen/library/conv_kernels.h"
#include "codegen/library/dot_to_gemm.h"

namespace jft::codegen::library {
namespace {

using runtime::GemmOperand;

bool isProductType(ir::ElementType t) {
  return t == ir::ElementType::F32 || t == ir::ElementType::BF16 ||
         t == ir::ElementType::F16 || t == ir::ElementType::F64;
}

// The stride of the innermost dim of `order` (ascending dims) if, ignoring
// dims of size 1, they form one run of memory; 1 when all have size 1.
std::optional<int64_t> runStride(const std::vector<int64_t>& dims,
                                 const std::vector<int64_t>& order) {
  const std::vector<int64_t> strides = rowMajorStrides(dims);
  int64_t previous = -1;
  for (int64_t d : order) {
    const size_t u = static_cast<size_t>(d);
    if (dims[u] == 1) continue;
    if (previous >= 0 && strides[static_cast<size_t>(previous)] != strides[u] * dims[u])
      return std::nullopt;
    previous = d;
  }
  return previous < 0 ? 1 : strides[static_cast<size_t>(previous)];
}

int64_t extentOfRoles(const ConvForm& form, const std::vector<int64_t>& roles) {
  int64_t p = 1;
  for (int64_t role : roles) p *= roleExtent(form, role);
  return p;
}

// The role of each dim of the result other than its feature dim, ascending.
std::vector<int64_t> outputRoles(const ConvForm& form) {
  std::vector<int64_t> roles;
  for (int64_t d = 0; d < form.out.rank(); ++d) {
    if (d == form.dn.output_feature_dim) continue;
    if (d == form.dn.output_batch_dim) {
      roles.push_back(kBatchRole);
      continue;
    }
    const auto& sp = form.dn.output_spatial_dims;
    roles.push_back(std::find(sp.begin(), sp.end(), d) - sp.begin());
  }
  return roles;
}

enum class Output { kInPlace, kTransposed, kTemp };

// `roles` without those of extent 1 (dims that take no space).
std::vector<int64_t> spanning(const ConvForm& form, const std::vector<int64_t>& roles) {
  std::vector<int64_t> kept;
  for (int64_t role : roles)
    if (roleExtent(form, role) != 1) kept.push_back(role);
  return kept;
}

// Whether the lhs already is the patch matrix: one group, a window of one
// position that reads every input position once (a 1x1 convolution), and
// the lhs's dims in the order of the m roles then the k roles.
bool lhsIsPatches(const ConvForm& form, const std::vector<int64_t>& m_roles,
                  const std::vector<int64_t>& k_roles) {
  if (form.groups() != 1) return false;
  for (size_t i = 0; i < static_cast<size_t>(form.spatial); ++i)
    if (form.window(static_cast<int64_t>(i)) != 1 || form.strides[i] != 1 ||
        form.pad_lo[i] != 0 || form.pad_hi[i] != 0 || form.lhs_dilation[i] != 1)
      return false;
  std::vector<int64_t> lhs_roles;
  for (int64_t d = 0; d < form.lhs.rank(); ++d) {
    const auto& sp = form.dn.input_spatial_dims;
    lhs_roles.push_back(d == form.dn.input_batch_dim ? kBatchRole
                        : d == form.dn.input_feature_dim
                            ? kChannelRole
                            : std::find(sp.begin(), sp.end(), d) - sp.begin());
  }
  std::vector<int64_t> order = m_roles;
  order.insert(order.end(), k_roles.begin(), k_roles.end());
  return spanning(form, lhs_roles) == spanning(form, order);
}

}  // namespace

Status checkConvolution(const ir::Module& module, const ir::Op& conv) {
  JFT_ASSIGN_OR_RETURN(ConvForm form, readConvForm(module, conv));
  const std::string what = convText(module, conv);
  if (form.lhs.element != form.rhs.element || !isProductType(form.lhs.element))
    return unimplemented(what +
                         ": only f32, bf16, f16 and f64 convolutions (both operands "
                         "of one type) have a library route");
  if (StatusOr<GemmTypes> types =
          gemmTypesOf(conv, form.lhs.element, form.rhs.element, form.out.element);
      !types.isOk())
    return unimplemented(what + ": " + types.status().message());
  if (form.lhs.numElements() == 0 || form.rhs.numElements() == 0 ||
      form.out.numElements() == 0)
    return unimplemented(what +
                         ": a convolution with an empty dimension has no library "
                         "route");
  return Status::ok();
}

StatusOr<LibraryCall> lowerConvolution(ir::Module& module, const fusion::Fusion& group,
                                       const ir::Op& conv) {
  if (Status s = checkConvolution(module, conv); !s.isOk())
    return s.withContext(group.name);
  JFT_ASSIGN_OR_RETURN(const ConvForm form, readConvForm(module, conv));
  JFT_ASSIGN_OR_RETURN(GemmTypes types, gemmTypesOf(conv, form.lhs.element,
                                                    form.rhs.element, form.out.element));
  const ir::ConvDimensionNumbers& dn = form.dn;
  const int64_t groups = form.groups();
  const int64_t features = form.outFeatures();
  const int64_t n = features / groups;
  LibraryCall call;
  call.b = conv.operands[1];
  call.d = conv.results[0];

  // k: the rhs's window and input feature dims in its memory order.
  std::vector<int64_t> k_roles, k_dims;
  for (int64_t d = 0; d < form.rhs.rank(); ++d) {
    if (d == dn.kernel_output_feature_dim) continue;
    k_dims.push_back(d);
    const auto& sp = dn.kernel_spatial_dims;
    k_roles.push_back(d == dn.kernel_input_feature_dim
                          ? kChannelRole
                          : kWindowRole +
                                (std::find(sp.begin(), sp.end(), d) - sp.begin()));
  }
  const int64_t k = extentOfRoles(form, k_roles);
  const int64_t rank = form.rhs.rank();
  GemmOperand w;
  if (dn.kernel_output_feature_dim == rank - 1 || features == 1) {
    w = {types.in, false, features, n};
  } else if (dn.kernel_output_feature_dim == 0) {
    w = {types.in, true, k, n * k};
  } else {
    std::vector<int64_t> perm = k_dims;
    perm.push_back(dn.kernel_output_feature_dim);
    call.b = addRhsKernel(module, group, conv, perm, call.transposes);
    w = {types.in, false, features, n};
  }

  // m: the result's other dims in its memory order, if the product can
  // write it in place.
  std::vector<int64_t> m_roles = outputRoles(form);
  const int64_t m = extentOfRoles(form, m_roles);
  std::vector<int64_t> m_dims;
  for (int64_t d = 0; d < form.out.rank(); ++d)
    if (d != dn.output_feature_dim) m_dims.push_back(d);
  const std::optional<int64_t> m_stride = runStride(form.out.dims, m_dims);
  const int64_t feature_stride =
      rowMajorStrides(form.out.dims)[static_cast<size_t>(dn.output_feature_dim)];
  Output output = Output::kTemp;
  if (m_stride && (groups == 1 || m == 1) && (features == 1 || feature_stride == 1) &&
      (m == 1 || *m_stride == features))
    output = Output::kInPlace;
  else if (m_stride && (features == 1 || feature_stride == m) &&
           (m == 1 || *m_stride == 1))
    output = Output::kTransposed;
  if (output == Output::kTemp) {
    m_roles = {kBatchRole};
    for (int64_t i = 0; i < form.spatial; ++i) m_roles.push_back(i);
  }

  // The patches kernel runs first; the rhs transpose (if any) was added
  // before it and reads only the rhs, so their order does not matter.
  call.a = lhsIsPatches(form, m_roles, k_roles)
               ? conv.operands[0]
               : addPatchesKernel(module, group, conv, form, m_roles, k_roles,
                                  call.transposes);
  const GemmOperand p = {types.in, false, k, m * k};

  runtime::GemmDesc& g = call.dot.gemm;
  g.batch = groups;
  g.compute = types.compute;
  g.d_type = types.out;
  g.k = k;
  if (output == Output::kTransposed) {
    g.m = n;
    g.n = m;
    g.a = {w.type, !w.transpose, w.ld, w.batch_stride};
    g.b = {p.type, !p.transpose, p.ld, p.batch_stride};
    g.d_ld = m;
    g.d_batch_stride = n * m;
    std::swap(call.a, call.b);
  } else {
    g.m = m;
    g.n = n;
    g.a = p;
    g.b = w;
    g.d_ld = output == Output::kTemp ? n : features;
    g.d_batch_stride = output == Output::kTemp ? m * n : n;
  }
  if (output == Output::kTemp)
    call.d = addOutputKernel(module, group, conv, form, call.after);
  if (Status s = runtime::validateGemm(g); !s.isOk())
    return internalError(group.name + ": convolution product: " + s.message());
  for (const auto* list : {&call.transposes, &call.after})
    for (const OperandTranspose& t : *list)
      call.convolution += (call.convolution.empty() ? "" : ",") +
                          t.group.name.substr(group.name.size() + 1);
  if (call.convolution.empty()) call.convolution = "none";
  return call;
}

}  // namespace jft::codegen::library
