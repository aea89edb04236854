// Op attributes: typed values for everything the StableHLO spec defines, and
// plain/opaque values for attributes of dialects we do not interpret.
//
// An op's attributes are a NamedAttrs list in a stable order (the order the
// frontend found them, which printers keep). Names follow the StableHLO
// generic form: "dot_dimension_numbers", "comparison_direction",
// "broadcast_dimensions", "precision_config", ...
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "ir/dense_elements.h"
#include "ir/type.h"

namespace jft::ir {

enum class ComparisonDirection : uint8_t { EQ, NE, GE, GT, LE, LT };
enum class ComparisonType : uint8_t { NOTYPE, FLOAT, TOTALORDER, SIGNED, UNSIGNED };
enum class Precision : uint8_t { DEFAULT, HIGH, HIGHEST };
enum class FftType : uint8_t { FFT, IFFT, RFFT, IRFFT };
enum class RngAlgorithm : uint8_t { DEFAULT, THREE_FRY, PHILOX };
enum class RngDistribution : uint8_t { UNIFORM = 1, NORMAL = 2 };
enum class Transpose : uint8_t { NO_TRANSPOSE = 1, TRANSPOSE = 2, ADJOINT = 3 };
enum class CustomCallApiVersion : uint8_t {
  UNSPECIFIED = 0,
  ORIGINAL = 1,
  STATUS_RETURNING = 2,
  STATUS_RETURNING_UNIFIED = 3,
  TYPED_FFI = 4,
};
enum class ResultAccuracyMode : uint8_t { DEFAULT, HIGHEST, TOLERANCE };

struct DotDimensionNumbers {
  std::vector<int64_t> lhs_batching_dims, rhs_batching_dims;
  std::vector<int64_t> lhs_contracting_dims, rhs_contracting_dims;
  friend bool operator==(const DotDimensionNumbers&,
                         const DotDimensionNumbers&) = default;
};

// dot_general's optional algorithm (StableHLO DotAlgorithm).
struct DotAlgorithm {
  Type lhs_precision_type, rhs_precision_type, accumulation_type;  // scalars
  int64_t lhs_component_count = 1, rhs_component_count = 1;
  int64_t num_primitive_operations = 1;
  bool allow_imprecise_accumulation = false;
  friend bool operator==(const DotAlgorithm&, const DotAlgorithm&) = default;
};

struct ConvDimensionNumbers {
  int64_t input_batch_dim = 0, input_feature_dim = 0;
  std::vector<int64_t> input_spatial_dims;
  int64_t kernel_input_feature_dim = 0, kernel_output_feature_dim = 0;
  std::vector<int64_t> kernel_spatial_dims;
  int64_t output_batch_dim = 0, output_feature_dim = 0;
  std::vector<int64_t> output_spatial_dims;
  friend bool operator==(const ConvDimensionNumbers&,
                         const ConvDimensionNumbers&) = default;
};

struct GatherDimensionNumbers {
  std::vector<int64_t> offset_dims, collapsed_slice_dims;
  std::vector<int64_t> operand_batching_dims, start_indices_batching_dims;
  std::vector<int64_t> start_index_map;
  int64_t index_vector_dim = 0;
  friend bool operator==(const GatherDimensionNumbers&,
                         const GatherDimensionNumbers&) = default;
};

struct ScatterDimensionNumbers {
  std::vector<int64_t> update_window_dims, inserted_window_dims;
  std::vector<int64_t> input_batching_dims, scatter_indices_batching_dims;
  std::vector<int64_t> scatter_dims_to_operand_dims;
  int64_t index_vector_dim = 0;
  friend bool operator==(const ScatterDimensionNumbers&,
                         const ScatterDimensionNumbers&) = default;
};

struct ResultAccuracy {
  double atol = 0, rtol = 0;
  int64_t ulps = 0;
  ResultAccuracyMode mode = ResultAccuracyMode::DEFAULT;
  friend bool operator==(const ResultAccuracy&, const ResultAccuracy&) = default;
};

struct ChannelHandle {
  int64_t handle = 0, type = 0;
  friend bool operator==(const ChannelHandle&, const ChannelHandle&) = default;
};

struct OutputOperandAlias {
  std::vector<int64_t> output_tuple_indices;
  int64_t operand_index = 0;
  std::vector<int64_t> operand_tuple_indices;
  friend bool operator==(const OutputOperandAlias&, const OutputOperandAlias&) = default;
};

// An attribute of a dialect we do not interpret (sdy shardings, ...): kept so
// it can be printed and passed through, never interpreted.
struct OpaqueAttr {
  std::string dialect;
  std::string text;  // best-effort textual form
  friend bool operator==(const OpaqueAttr&, const OpaqueAttr&) = default;
};

struct Attribute;
using AttrList = std::vector<Attribute>;
using NamedAttrs = std::vector<std::pair<std::string, Attribute>>;

struct UnitAttr {
  friend bool operator==(UnitAttr, UnitAttr) { return true; }
};

// A symbol reference (@name), e.g. func.call's callee.
struct SymbolRef {
  std::string name;
  friend bool operator==(const SymbolRef&, const SymbolRef&) = default;
};

struct Attribute {
  using Value =
      std::variant<UnitAttr, bool, int64_t, double, std::string, std::vector<int64_t>,
                   std::vector<bool>, DenseElements, Type, SymbolRef, ComparisonDirection,
                   ComparisonType, std::vector<Precision>, FftType, RngAlgorithm,
                   RngDistribution, Transpose, CustomCallApiVersion, DotDimensionNumbers,
                   DotAlgorithm, ConvDimensionNumbers, GatherDimensionNumbers,
                   ScatterDimensionNumbers, ResultAccuracy, ChannelHandle,
                   std::vector<OutputOperandAlias>, AttrList, NamedAttrs, OpaqueAttr>;
  Value value;

  Attribute() = default;
  template <typename T>
  Attribute(T v) : value(std::move(v)) {}  // NOLINT: implicit by design

  template <typename T>
  bool is() const {
    return std::holds_alternative<T>(value);
  }
  template <typename T>
  const T& as() const {
    return std::get<T>(value);
  }

  friend bool operator==(const Attribute& a, const Attribute& b) {
    return a.value == b.value;
  }
};

// Lookup in a NamedAttrs list; nullptr when absent.
const Attribute* findAttr(const NamedAttrs& attrs, std::string_view name);
// Typed lookup: nullptr when absent or of another type.
template <typename T>
const T* findAttrAs(const NamedAttrs& attrs, std::string_view name) {
  const Attribute* a = findAttr(attrs, name);
  return a && a->is<T>() ? &a->as<T>() : nullptr;
}

std::string_view comparisonDirectionName(ComparisonDirection d);
// a DIR b as b DIR' a (GE <-> LE, GT <-> LT; EQ, NE unchanged).
ComparisonDirection mirrored(ComparisonDirection d);
// not (a DIR b) as a DIR' b, for a total order (GE <-> LT, GT <-> LE, EQ <-> NE).
ComparisonDirection negated(ComparisonDirection d);
std::string_view comparisonTypeName(ComparisonType t);
std::string_view precisionName(Precision p);
std::string_view fftTypeName(FftType t);

}  // namespace jft::ir
