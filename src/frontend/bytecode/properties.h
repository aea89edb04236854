// Op properties: the properties section (a table of blobs) and the decoding
// of one op's blob into named attributes.
//
// Registered ops encode their properties with ODS-generated code: one
// attribute reference per property, in name order, optional ones flagged.
// The blob holds no names, so decoding needs each op's property list; we
// know builtin.module and every VHLO op exactly (vhlo_op_properties.cc), and
// func.func, sdy.mesh, sdy.manual_computation as best effort. An op outside
// those, or a best-effort op whose blob does not fit, keeps its blob as one
// Opaque attribute named "properties" (raw bytes in `data`).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "frontend/bytecode/attr_type_table.h"
#include "frontend/bytecode/cursor.h"
#include "frontend/mlir_tree.h"
#include "support/status.h"

namespace jft::frontend::bytecode {

class PropertiesTable {
 public:
  Status init(const std::optional<Cursor>& section);
  // Reads a property index from `in`; `out` covers that entry's blob.
  Status read(Cursor& in, Cursor& out) const;

 private:
  std::vector<Cursor> entries_;
};

struct PropertyField {
  std::string_view name;
  bool optional;
};

// The property list of an op, or nullopt when unknown.
std::optional<std::vector<PropertyField>> opPropertyFields(std::string_view op_name);

// The sorted attribute names of a VHLO op ("vhlo.add_v1"), or nullptr.
const std::vector<std::string_view>* vhloOpAttributeNames(std::string_view op_name);

Status decodeOpProperties(std::string_view op_name, Cursor blob, AttrTypeTable& table,
                          std::vector<std::pair<std::string, MAttrPtr>>& out);

}  // namespace jft::frontend::bytecode
