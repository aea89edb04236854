// The named fields of the dimension-number attributes, with StableHLO's names
// in its order (lists first, then integers): one table that the printer, the
// text parser and the VHLO import all read, so a field added to a struct is
// added here once. Convolution's is read by the VHLO import only: its text form
// is the compact `[b, 0, 1, f]x[...]->[...]` layout, not named fields.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "ir/attribute.h"

namespace jft::ir {

template <typename T>
struct ListField {
  std::string_view name;
  std::vector<int64_t> T::*member;
  bool since_1_1 = false;  // absent from older VHLO versions (batching dims)
};

template <typename T>
struct IntField {
  std::string_view name;
  int64_t T::*member;
};

// AttrFields<T>::lists, AttrFields<T>::ints.
template <typename T>
struct AttrFields;

template <>
struct AttrFields<DotDimensionNumbers> {
  using T = DotDimensionNumbers;
  static constexpr std::array<ListField<T>, 4> lists{{
      {"lhs_batching_dimensions", &T::lhs_batching_dims},
      {"rhs_batching_dimensions", &T::rhs_batching_dims},
      {"lhs_contracting_dimensions", &T::lhs_contracting_dims},
      {"rhs_contracting_dimensions", &T::rhs_contracting_dims},
  }};
  static constexpr std::array<IntField<T>, 0> ints{};
};

template <>
struct AttrFields<GatherDimensionNumbers> {
  using T = GatherDimensionNumbers;
  static constexpr std::array<ListField<T>, 5> lists{{
      {"offset_dims", &T::offset_dims},
      {"collapsed_slice_dims", &T::collapsed_slice_dims},
      {"operand_batching_dims", &T::operand_batching_dims, true},
      {"start_indices_batching_dims", &T::start_indices_batching_dims, true},
      {"start_index_map", &T::start_index_map},
  }};
  static constexpr std::array<IntField<T>, 1> ints{
      {{"index_vector_dim", &T::index_vector_dim}}};
};

template <>
struct AttrFields<ScatterDimensionNumbers> {
  using T = ScatterDimensionNumbers;
  static constexpr std::array<ListField<T>, 5> lists{{
      {"update_window_dims", &T::update_window_dims},
      {"inserted_window_dims", &T::inserted_window_dims},
      {"input_batching_dims", &T::input_batching_dims, true},
      {"scatter_indices_batching_dims", &T::scatter_indices_batching_dims, true},
      {"scatter_dims_to_operand_dims", &T::scatter_dims_to_operand_dims},
  }};
  static constexpr std::array<IntField<T>, 1> ints{
      {{"index_vector_dim", &T::index_vector_dim}}};
};

template <>
struct AttrFields<ConvDimensionNumbers> {
  using T = ConvDimensionNumbers;
  static constexpr std::array<ListField<T>, 3> lists{{
      {"input_spatial_dimensions", &T::input_spatial_dims},
      {"kernel_spatial_dimensions", &T::kernel_spatial_dims},
      {"output_spatial_dimensions", &T::output_spatial_dims},
  }};
  static constexpr std::array<IntField<T>, 6> ints{{
      {"input_batch_dimension", &T::input_batch_dim},
      {"input_feature_dimension", &T::input_feature_dim},
      {"kernel_input_feature_dimension", &T::kernel_input_feature_dim},
      {"kernel_output_feature_dimension", &T::kernel_output_feature_dim},
      {"output_batch_dimension", &T::output_batch_dim},
      {"output_feature_dimension", &T::output_feature_dim},
  }};
};

}  // namespace jft::ir
