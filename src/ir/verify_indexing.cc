// gather and scatter: the dimension numbers (spec constraints C1-C23 of
// gather, C1-C25 of scatter) and the shapes they imply.
#include <string>

#include "ir/verify_op.h"
#include "support/int_lists.h"

namespace jft::ir {
namespace {

std::vector<int64_t> concat(std::vector<int64_t> a, const std::vector<int64_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Checks shared by gather and scatter on the index tensor, the map from
// index vector to operand dimensions, and the batching dimensions.
bool checkIndexing(OpVerifier& v, const Type& operand, const Type& indices,
                   int64_t index_vector_dim, const std::vector<int64_t>& index_map,
                   const std::vector<int64_t>& operand_batching,
                   const std::vector<int64_t>& indices_batching,
                   std::string_view map_name) {
  if (!isInteger(indices.element))
    return v.fail("indices must be integers, got " + indices.str());
  if (index_vector_dim < 0 || index_vector_dim > indices.rank())
    return v.fail("index_vector_dim " + std::to_string(index_vector_dim) +
                  " outside [0, " + std::to_string(indices.rank()) + "]");
  const int64_t index_size =
      index_vector_dim < indices.rank() ? indices.dims[index_vector_dim] : 1;
  if (static_cast<int64_t>(index_map.size()) != index_size)
    return v.fail(std::string(map_name) + " " + listText(index_map) + " must have " +
                  std::to_string(index_size) + " entries (the index vector size)");
  if (!checkDimsInRange(v, index_map, operand.rank(), map_name) ||
      !checkUnique(v, concat(index_map, operand_batching),
                   std::string(map_name) + " and batching dims"))
    return false;
  if (!checkUnique(v, indices_batching, "index batching dims") ||
      !checkDimsInRange(v, indices_batching, indices.rank(), "index batching dims"))
    return false;
  if (contains(indices_batching, index_vector_dim))
    return v.fail("index_vector_dim " + std::to_string(index_vector_dim) +
                  " is also an index batching dim");
  if (operand_batching.size() != indices_batching.size())
    return v.fail("operand and index batching dims differ in number: " +
                  listText(operand_batching) + " vs " + listText(indices_batching));
  for (size_t i = 0; i < operand_batching.size(); ++i)
    if (operand.dims[operand_batching[i]] != indices.dims[indices_batching[i]])
      return v.fail("batching dimension sizes differ: operand dimension " +
                    std::to_string(operand_batching[i]) + " vs index dimension " +
                    std::to_string(indices_batching[i]));
  return true;
}

// A list of dimension numbers and its attribute name ("offset_dims").
struct DimList {
  const std::vector<int64_t>& dims;
  std::string_view name;
};

// gather's offset, collapsed and operand batching dims and scatter's update
// window, inserted and input batching dims obey the same rules: together they
// name each dimension of the operand once; the window dims are unique, sorted
// and dimensions of the windowed value (`window_rank`: gather's result,
// scatter's updates); the other two unique together, each sorted and
// dimensions of the operand (`operand_name`: "operand", "input").
bool checkWindowDims(OpVerifier& v, const DimList& window, int64_t window_rank,
                     const DimList& collapsed, const DimList& batching,
                     const Type& operand, std::string_view operand_name) {
  const int64_t dims_named = static_cast<int64_t>(
      window.dims.size() + collapsed.dims.size() + batching.dims.size());
  if (dims_named != operand.rank())
    return v.fail(std::string(window.name) + ", " + std::string(collapsed.name) +
                  " and " + std::string(batching.name) + " name " +
                  std::to_string(dims_named) + " dimensions, " +
                  std::string(operand_name) + " has rank " +
                  std::to_string(operand.rank()));
  return checkUnique(v, window.dims, window.name) &&
         checkSorted(v, window.dims, window.name) &&
         checkDimsInRange(v, window.dims, window_rank, window.name) &&
         checkUnique(
             v, concat(collapsed.dims, batching.dims),
             std::string(collapsed.name) + " and " + std::string(batching.name)) &&
         checkSorted(v, collapsed.dims, collapsed.name) &&
         checkDimsInRange(v, collapsed.dims, operand.rank(), collapsed.name) &&
         checkSorted(v, batching.dims, batching.name) &&
         checkDimsInRange(v, batching.dims, operand.rank(), batching.name);
}

// Dimensions of `indices` that index (all but index_vector_dim), in order.
std::vector<int64_t> indexBatchSizes(const Type& indices, int64_t index_vector_dim) {
  std::vector<int64_t> sizes;
  for (int64_t d = 0; d < indices.rank(); ++d)
    if (d != index_vector_dim) sizes.push_back(indices.dims[d]);
  return sizes;
}

void verifyGather(OpVerifier& v) {
  if (!v.expectCounts(2, 1) || !v.expectTensors()) return;
  const Type& operand = v.operand(0);
  const Type& indices = v.operand(1);
  const Type& out = v.result(0);
  const auto* dn = v.requiredAttr<GatherDimensionNumbers>("dimension_numbers");
  auto slice_sizes = v.intsAttr("slice_sizes");
  if (!dn || !slice_sizes) return;
  if (out.element != operand.element)
    return (void)v.fail("result element type differs from operand's: " + out.str() +
                        " vs " + operand.str());
  if (!checkWindowDims(v, {dn->offset_dims, "offset_dims"}, out.rank(),
                       {dn->collapsed_slice_dims, "collapsed_slice_dims"},
                       {dn->operand_batching_dims, "operand_batching_dims"}, operand,
                       "operand"))
    return;
  if (!checkIndexing(v, operand, indices, dn->index_vector_dim, dn->start_index_map,
                     dn->operand_batching_dims, dn->start_indices_batching_dims,
                     "start_index_map"))
    return;
  if (static_cast<int64_t>(slice_sizes->size()) != operand.rank())
    return (void)v.fail("slice_sizes " + listText(*slice_sizes) + " must have " +
                        std::to_string(operand.rank()) + " entries");
  for (int64_t d = 0; d < operand.rank(); ++d)
    if ((*slice_sizes)[d] < 0 || (*slice_sizes)[d] > operand.dims[d])
      return (void)v.fail("slice_sizes " + listText(*slice_sizes) +
                          " exceed operand shape " + shapeText(operand.dims));
  for (int64_t d : concat(dn->collapsed_slice_dims, dn->operand_batching_dims))
    if ((*slice_sizes)[d] > 1)
      return (void)v.fail("slice size of collapsed or batching dimension " +
                          std::to_string(d) + " must be at most 1, got " +
                          std::to_string((*slice_sizes)[d]));
  std::vector<int64_t> offset_sizes;
  for (int64_t d = 0; d < operand.rank(); ++d)
    if (!contains(dn->collapsed_slice_dims, d) && !contains(dn->operand_batching_dims, d))
      offset_sizes.push_back((*slice_sizes)[d]);
  const std::vector<int64_t> batch_sizes = indexBatchSizes(indices, dn->index_vector_dim);
  const size_t rank = batch_sizes.size() + offset_sizes.size();
  if (static_cast<size_t>(out.rank()) != rank)
    return (void)v.fail("result rank " + std::to_string(out.rank()) + " should be " +
                        std::to_string(rank));
  std::vector<int64_t> expected;
  size_t next_batch = 0, next_offset = 0;
  for (size_t d = 0; d < rank; ++d)
    expected.push_back(contains(dn->offset_dims, static_cast<int64_t>(d))
                           ? offset_sizes[next_offset++]
                           : batch_sizes[next_batch++]);
  if (out.dims != expected)
    v.fail("result shape " + shapeText(out.dims) + " should be " + shapeText(expected));
}

void verifyScatter(OpVerifier& v) {
  if (!v.expectTensors()) return;
  if (v.numOperands() < 3 || v.numOperands() % 2 == 0 ||
      v.numResults() != (v.numOperands() - 1) / 2)
    return (void)v.fail(
        "expects N inputs, the indices and N updates with N results, got " +
        std::to_string(v.numOperands()) + " operands and " +
        std::to_string(v.numResults()) + " results");
  const size_t n = v.numResults();
  const Type& input = v.operand(0);
  const Type& indices = v.operand(n);
  const Type& update = v.operand(n + 1);
  const auto* dn = v.requiredAttr<ScatterDimensionNumbers>("scatter_dimension_numbers");
  if (!dn) return;
  std::vector<ElementType> elements;
  for (size_t i = 0; i < n; ++i) {
    const Type& in = v.operand(i);
    const Type& up = v.operand(n + 1 + i);
    if (in.dims != input.dims || up.dims != update.dims)
      return (void)v.fail("inputs (and updates) must share one shape: " + in.str() +
                          ", " + up.str());
    if (up.element != in.element)
      return (void)v.fail("update #" + std::to_string(i) + " " + up.str() +
                          " does not match input element type " + in.str());
    elements.push_back(in.element);
  }
  if (!checkWindowDims(v, {dn->update_window_dims, "update_window_dims"}, update.rank(),
                       {dn->inserted_window_dims, "inserted_window_dims"},
                       {dn->input_batching_dims, "input_batching_dims"}, input, "input"))
    return;
  if (!checkIndexing(v, input, indices, dn->index_vector_dim,
                     dn->scatter_dims_to_operand_dims, dn->input_batching_dims,
                     dn->scatter_indices_batching_dims, "scatter_dims_to_operand_dims"))
    return;
  // updates = scatter sizes (from the indices) interleaved with window sizes
  // (bounded by the input's non-inserted, non-batching dimensions).
  const std::vector<int64_t> scatter_sizes =
      indexBatchSizes(indices, dn->index_vector_dim);
  std::vector<int64_t> window_bounds;
  for (int64_t d = 0; d < input.rank(); ++d)
    if (!contains(dn->inserted_window_dims, d) && !contains(dn->input_batching_dims, d))
      window_bounds.push_back(input.dims[d]);
  if (static_cast<size_t>(update.rank()) != scatter_sizes.size() + window_bounds.size())
    return (void)v.fail("updates rank " + std::to_string(update.rank()) + " should be " +
                        std::to_string(scatter_sizes.size() + window_bounds.size()));
  size_t next_scatter = 0, next_window = 0;
  for (int64_t d = 0; d < update.rank(); ++d) {
    if (contains(dn->update_window_dims, d)) {
      if (update.dims[d] > window_bounds[next_window++])
        return (void)v.fail("update window dimension " + std::to_string(d) + " of " +
                            update.str() + " exceeds the input's " + input.str());
    } else if (update.dims[d] != scatter_sizes[next_scatter++]) {
      return (void)v.fail("update scatter dimension " + std::to_string(d) + " of " +
                          update.str() + " does not match the indices " + indices.str());
    }
  }
  if (v.op().regions.size() != 1)
    return (void)v.fail("expects one update_computation region");
  auto body_elements = checkCombiner(v, v.op().regions[0], elements);
  if (!body_elements) return;
  for (size_t i = 0; i < n; ++i)
    if (v.result(i) != Type::tensor((*body_elements)[i], input.dims))
      return (void)v.fail("result #" + std::to_string(i) + " " + v.result(i).str() +
                          " should be " +
                          Type::tensor((*body_elements)[i], input.dims).str());
}

}  // namespace

void verifyIndexing(OpVerifier& v) {
  if (v.op().kind == OpKind::Gather) return verifyGather(v);
  if (v.op().kind == OpKind::Scatter) return verifyScatter(v);
}

}  // namespace jft::ir
