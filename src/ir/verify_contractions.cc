// dot_general and convolution: dimension numbers, sizes that must agree,
// and the result shape the spec derives from them.
//
// Element types are not compared: JAX emits mixed-precision forms
// (preferred_element_type results, mixed operand types) that the
// non-quantized constraints (dot_general C13, convolution C27) would reject
// but every consumer of StableHLO accepts.
#include <string>

#include "ir/verify_op.h"

namespace jft::ir {
namespace {

bool checkPrecisionConfig(OpVerifier& v) {
  const auto* config = v.optionalAttr<std::vector<Precision>>("precision_config");
  if (!config || config->empty() || config->size() == 2) return true;
  return v.fail("precision_config must have 2 entries, got " +
                std::to_string(config->size()));
}

// Dimensions of `type` not in `used`, in order.
std::vector<int64_t> freeDims(const Type& type, const std::vector<int64_t>& a,
                              const std::vector<int64_t>& b) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < type.rank(); ++d) {
    bool used = false;
    for (int64_t x : a) used = used || x == d;
    for (int64_t x : b) used = used || x == d;
    if (!used) dims.push_back(type.dims[d]);
  }
  return dims;
}

void verifyDotGeneral(OpVerifier& v) {
  if (!v.expectCounts(2, 1) || !v.expectTensors()) return;
  const Type& lhs = v.operand(0);
  const Type& rhs = v.operand(1);
  const auto* dn = v.requiredAttr<DotDimensionNumbers>("dot_dimension_numbers");
  if (!dn) return;
  if (dn->lhs_batching_dims.size() != dn->rhs_batching_dims.size())
    return (void)v.fail("batching dimensions differ in number: lhs " +
                        listText(dn->lhs_batching_dims) + ", rhs " +
                        listText(dn->rhs_batching_dims));
  if (dn->lhs_contracting_dims.size() != dn->rhs_contracting_dims.size())
    return (void)v.fail("contracting dimensions differ in number: lhs " +
                        listText(dn->lhs_contracting_dims) + ", rhs " +
                        listText(dn->rhs_contracting_dims));
  for (int side = 0; side < 2; ++side) {
    const Type& t = side ? rhs : lhs;
    const auto& batch = side ? dn->rhs_batching_dims : dn->lhs_batching_dims;
    const auto& contract = side ? dn->rhs_contracting_dims : dn->lhs_contracting_dims;
    const std::string name = side ? "rhs" : "lhs";
    std::vector<int64_t> all = batch;
    all.insert(all.end(), contract.begin(), contract.end());
    if (!checkDimsInRange(v, batch, t.rank(), name + " batching dimensions") ||
        !checkDimsInRange(v, contract, t.rank(), name + " contracting dimensions") ||
        !checkUnique(v, all, name + " batching and contracting dimensions"))
      return;
  }
  auto checkSizes = [&](const auto& l, const auto& r, const char* what) {
    for (size_t i = 0; i < l.size(); ++i)
      if (lhs.dims[l[i]] != rhs.dims[r[i]])
        return v.fail(std::string(what) + " dimension sizes differ: lhs dimension " +
                      std::to_string(l[i]) + " is " + std::to_string(lhs.dims[l[i]]) +
                      ", rhs dimension " + std::to_string(r[i]) + " is " +
                      std::to_string(rhs.dims[r[i]]));
    return true;
  };
  if (!checkSizes(dn->lhs_batching_dims, dn->rhs_batching_dims, "batching") ||
      !checkSizes(dn->lhs_contracting_dims, dn->rhs_contracting_dims, "contracting") ||
      !checkPrecisionConfig(v))
    return;
  std::vector<int64_t> expected;
  for (int64_t d : dn->lhs_batching_dims) expected.push_back(lhs.dims[d]);
  for (int64_t d : freeDims(lhs, dn->lhs_batching_dims, dn->lhs_contracting_dims))
    expected.push_back(d);
  for (int64_t d : freeDims(rhs, dn->rhs_batching_dims, dn->rhs_contracting_dims))
    expected.push_back(d);
  if (v.result(0).dims != expected)
    v.fail("result shape " + shapeText(v.result(0).dims) + " should be " +
           shapeText(expected));
}

// Window attributes of a convolution with `spatial` spatial dimensions,
// defaults filled in.
struct Window {
  std::vector<int64_t> strides, padding, lhs_dilation, rhs_dilation;
};

std::optional<Window> readWindow(OpVerifier& v, int64_t spatial) {
  Window w;
  auto read = [&](std::string_view name, int64_t size, int64_t fill,
                  std::vector<int64_t>& out) {
    auto values = v.intsAttr(name, /*required=*/false);
    out = values ? *values : std::vector<int64_t>(size, fill);
    if (static_cast<int64_t>(out.size()) == size) return true;
    return v.fail(std::string(name) + " " + listText(out) + " must have " +
                  std::to_string(size) + " entries");
  };
  if (!read("window_strides", spatial, 1, w.strides) ||
      !read("padding", 2 * spatial, 0, w.padding) ||
      !read("lhs_dilation", spatial, 1, w.lhs_dilation) ||
      !read("rhs_dilation", spatial, 1, w.rhs_dilation))
    return std::nullopt;
  for (const auto* list : {&w.strides, &w.lhs_dilation, &w.rhs_dilation})
    for (int64_t x : *list)
      if (x <= 0) {
        v.fail("window strides and dilations must be positive, got " + listText(*list));
        return std::nullopt;
      }
  if (auto reversal = v.boolsAttr("window_reversal");
      reversal && static_cast<int64_t>(reversal->size()) != spatial) {
    v.fail("window_reversal must have " + std::to_string(spatial) + " entries");
    return std::nullopt;
  }
  return w;
}

bool checkLayout(OpVerifier& v, int64_t a, int64_t b, const std::vector<int64_t>& spatial,
                 int64_t rank, const std::string& what) {
  if (static_cast<int64_t>(spatial.size()) != rank - 2)
    return v.fail(what + " spatial dimensions " + listText(spatial) + " must have " +
                  std::to_string(rank - 2) + " entries");
  std::vector<int64_t> all = spatial;
  all.push_back(a);
  all.push_back(b);
  return checkDimsInRange(v, all, rank, what + " dimensions") &&
         checkUnique(v, all, what + " dimensions");
}

void verifyConvolution(OpVerifier& v) {
  if (!v.expectCounts(2, 1) || !v.expectTensors()) return;
  const Type& lhs = v.operand(0);
  const Type& rhs = v.operand(1);
  const Type& out = v.result(0);
  const auto* dn = v.requiredAttr<ConvDimensionNumbers>("dimension_numbers");
  if (!dn) return;
  const int64_t n = lhs.rank();
  if (rhs.rank() != n || out.rank() != n)
    return (void)v.fail("lhs, rhs and result must have one rank: " + lhs.str() + ", " +
                        rhs.str() + " -> " + out.str());
  if (n < 2) return (void)v.fail("operands need rank 2 or more, got " + lhs.str());
  if (!checkLayout(v, dn->input_batch_dim, dn->input_feature_dim, dn->input_spatial_dims,
                   n, "input") ||
      !checkLayout(v, dn->kernel_input_feature_dim, dn->kernel_output_feature_dim,
                   dn->kernel_spatial_dims, n, "kernel") ||
      !checkLayout(v, dn->output_batch_dim, dn->output_feature_dim,
                   dn->output_spatial_dims, n, "output"))
    return;
  auto window = readWindow(v, n - 2);
  if (!window || !checkPrecisionConfig(v)) return;
  const int64_t features = v.intAttr("feature_group_count", false).value_or(1);
  const int64_t batches = v.intAttr("batch_group_count", false).value_or(1);
  if (features <= 0 || batches <= 0)
    return (void)v.fail("feature_group_count and batch_group_count must be positive");
  if (features != 1 && batches != 1)
    return (void)v.fail("feature_group_count and batch_group_count cannot both exceed 1");
  const int64_t input_batch = lhs.dims[dn->input_batch_dim];
  const int64_t input_feature = lhs.dims[dn->input_feature_dim];
  const int64_t kernel_input = rhs.dims[dn->kernel_input_feature_dim];
  const int64_t kernel_output = rhs.dims[dn->kernel_output_feature_dim];
  if (input_batch % batches != 0)
    return (void)v.fail("input batch size " + std::to_string(input_batch) +
                        " is not a multiple of batch_group_count " +
                        std::to_string(batches));
  if (input_feature % features != 0 || kernel_input * features != input_feature)
    return (void)v.fail("kernel input features " + std::to_string(kernel_input) +
                        " times feature_group_count " + std::to_string(features) +
                        " must equal input features " + std::to_string(input_feature));
  if (kernel_output % batches != 0 || kernel_output % features != 0)
    return (void)v.fail("kernel output features " + std::to_string(kernel_output) +
                        " must be a multiple of both group counts");
  std::vector<int64_t> expected(n, 0);
  expected[dn->output_batch_dim] = input_batch / batches;
  expected[dn->output_feature_dim] = kernel_output;
  for (int64_t s = 0; s < n - 2; ++s) {
    auto count = windowCount(lhs.dims[dn->input_spatial_dims[s]],
                             rhs.dims[dn->kernel_spatial_dims[s]], window->strides[s],
                             window->padding[2 * s], window->padding[2 * s + 1],
                             window->lhs_dilation[s], window->rhs_dilation[s]);
    if (!count) return (void)v.fail("window sizes overflow int64");
    expected[dn->output_spatial_dims[s]] = *count;
  }
  if (out.dims != expected)
    v.fail("result shape " + shapeText(out.dims) + " should be " + shapeText(expected));
}

}  // namespace

void verifyContraction(OpVerifier& v) {
  if (v.op().kind == OpKind::DotGeneral) return verifyDotGeneral(v);
  if (v.op().kind == OpKind::Convolution) return verifyConvolution(v);
}

}  // namespace jft::ir
