// Tree attributes to ir attributes.
//
// Typed readers check one attribute against the form its op requires
// (integer, dimension list, enum, ...) and fail with INVALID_ARGUMENT
// naming the attribute, op and source position. convertGeneric maps any
// attribute to the closest ir form and never fails on foreign dialects:
// what ir cannot interpret is kept as OpaqueAttr.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/mlir_tree.h"
#include "frontend/vhlo/diag.h"
#include "ir/attribute.h"
#include "support/status.h"

namespace jft::frontend::vhlo {

// The VHLO enums, with the largest encoded value each accepts.
struct EnumSpec {
  std::string_view name;  // "comparison_direction_v1"
  int64_t min = 0, max = 0;
};
inline constexpr EnumSpec kComparisonDirectionEnum{"comparison_direction_v1", 0, 5};
inline constexpr EnumSpec kComparisonTypeEnum{"comparison_type_v1", 0, 4};
inline constexpr EnumSpec kPrecisionEnum{"precision_v1", 0, 2};
inline constexpr EnumSpec kFftTypeEnum{"fft_type_v1", 0, 3};
inline constexpr EnumSpec kRngAlgorithmEnum{"rng_algorithm_v1", 0, 2};
inline constexpr EnumSpec kRngDistributionEnum{"rng_distribution_v1", 1, 2};
inline constexpr EnumSpec kTransposeEnum{"transpose_v1", 1, 3};
inline constexpr EnumSpec kApiVersionEnum{"api_version_v1", 0, 4};
inline constexpr EnumSpec kResultAccuracyModeEnum{"result_accuracy_mode_v1", 0, 2};

// Each reader takes the attribute (null when absent: a "missing attribute"
// error) and the name it goes by, for messages.
StatusOr<int64_t> readInt(const MAttr* attr, std::string_view name, const OpSite& site);
StatusOr<bool> readBool(const MAttr* attr, std::string_view name, const OpSite& site);
StatusOr<double> readFloat(const MAttr* attr, std::string_view name, const OpSite& site);
StatusOr<std::string> readString(const MAttr* attr, std::string_view name,
                                 const OpSite& site);
// A string or symbol reference naming a function.
StatusOr<std::string> readSymbol(const MAttr* attr, std::string_view name,
                                 const OpSite& site);
// A dense integer tensor/array, a struct field list, or an array of integers.
StatusOr<std::vector<int64_t>> readInts(const MAttr* attr, std::string_view name,
                                        const OpSite& site);
StatusOr<std::vector<bool>> readBools(const MAttr* attr, std::string_view name,
                                      const OpSite& site);
StatusOr<ir::DenseElements> readDense(const MAttr* attr, std::string_view name,
                                      const OpSite& site);
// The encoded value of a VHLO enum attribute, range-checked.
StatusOr<int64_t> readEnum(const MAttr* attr, std::string_view name, const EnumSpec& spec,
                           const OpSite& site);
StatusOr<std::vector<ir::Precision>> readPrecisions(const MAttr* attr,
                                                    std::string_view name,
                                                    const OpSite& site);
StatusOr<ir::ResultAccuracy> readResultAccuracy(const MAttr* attr, std::string_view name,
                                                const OpSite& site);
StatusOr<std::vector<ir::OutputOperandAlias>> readAliases(const MAttr* attr,
                                                          std::string_view name,
                                                          const OpSite& site);
// A dictionary's entries, each converted generically.
StatusOr<ir::NamedAttrs> readDict(const MAttr* attr, std::string_view name,
                                  const OpSite& site);

// Any attribute, in the closest ir form (see the file comment).
StatusOr<ir::Attribute> convertGeneric(const MAttr* attr, std::string_view name,
                                       const OpSite& site);

// A struct field by name, matching "operandIndex" and "operand_index" alike.
const MAttr* structField(const MAttr& attr, std::string_view field);

}  // namespace jft::frontend::vhlo
