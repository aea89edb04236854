// The generic MLIR tree: what the bytecode reader produces and the VHLO
// importer consumes.
//
// It mirrors MLIR's own model (ops with names, operands, results, attribute
// dictionaries and regions of blocks) with attributes and types decoded into
// plain values. It knows the builtin dialect and VHLO's attribute/type kinds;
// attributes and types of any other dialect arrive as Opaque with their
// dialect name and whatever textual form the bytecode held.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace jft::frontend {

struct MType;
struct MAttr;
using MTypePtr = std::shared_ptr<const MType>;
using MAttrPtr = std::shared_ptr<const MAttr>;

inline constexpr int64_t kDynamicDim = INT64_MIN;

// Builtin and VHLO types. VHLO's versioned types (vhlo.f32_v1,
// vhlo.ranked_tensor_v1, ...) map onto the same kinds as builtin ones.
struct MType {
  enum class Kind : uint8_t {
    Integer,         // width, signedness
    Index,
    Float,           // float_name
    Complex,         // elements[0] = component type
    RankedTensor,    // shape (kDynamicDim for '?'), elements[0] = element type, encoding
    UnrankedTensor,  // elements[0]
    Tuple,           // elements
    Token,
    Function,        // elements = inputs then results; num_inputs
    None,
    Quantized,       // text: best-effort description; elements[0] = storage type
    Opaque,          // dialect, text
  };
  enum class Signedness : uint8_t { Signless, Signed, Unsigned };

  Kind kind = Kind::None;
  std::string dialect;  // "builtin", "vhlo", or the foreign dialect's name
  unsigned width = 0;                             // Integer
  Signedness signedness = Signedness::Signless;   // Integer
  std::string float_name;  // Float: "f16" "bf16" "f32" "f64" "f8E4M3FN" "f8E5M2" "f4E2M1FN" "tf32" ...
  std::vector<int64_t> shape;       // RankedTensor
  std::vector<MTypePtr> elements;   // see Kind
  size_t num_inputs = 0;            // Function
  MAttrPtr encoding;                // RankedTensor; null if none
  std::string text;                 // Opaque / Quantized
};

struct MAttr {
  enum class Kind : uint8_t {
    Unit,
    Bool,          // int_value 0/1
    Integer,       // int_value (sign-extended per type), type
    Float,         // float_value, type; ints = the raw bits (low word first) when decoded
    String,        // str (may hold arbitrary bytes)
    Array,         // elements
    Dictionary,    // entries
    TypeAttr,      // type
    DenseElements, // type (shaped), data: raw little-endian elements as MLIR stores them
                   // (a splat holds one element; i1 is one byte 0/1 per element)
    DenseArray,    // type (element type), data; e.g. array<i64: 1, 2>; ints also
                   // holds the values when the elements are integers
    DenseString,   // type, strings
    SymbolRef,     // str = root reference, elements = nested references (as SymbolRef attrs)
    Enum,          // name = "vhlo.comparison_direction_v1" etc., int_value = the encoded enum,
                   // str = its case name ("EQ")
    Struct,        // name = "vhlo.dot_dimension_numbers_v1" etc., entries = fields (ints/int lists as IntList)
    IntList,       // ints: a field of a Struct
    Location,      // loc_kind and fields below
    Opaque,        // dialect, name, str = textual form if known; data = the raw
                   // bytes of a custom-encoded entry of a dialect we do not decode
  };
  enum class LocKind : uint8_t { Unknown, FileLineCol, Name, CallSite, Fused };

  Kind kind = Kind::Unit;
  std::string dialect;  // "builtin", "vhlo", ...
  std::string name;     // the attribute's own name where meaningful
  int64_t int_value = 0;
  double float_value = 0;
  std::string str;
  std::vector<int64_t> ints;
  MTypePtr type;
  std::vector<MAttrPtr> elements;
  std::vector<std::pair<std::string, MAttrPtr>> entries;
  std::vector<uint8_t> data;
  std::vector<std::string> strings;

  // Location fields. FileLineCol: str = file, ints = {line, col, end_line,
  // end_col}. Name: str = name, elements = {child} (child may be Unknown).
  // CallSite: elements = {callee, caller}. Fused: elements = locations,
  // metadata in entries[0] if any.
  LocKind loc_kind = LocKind::Unknown;

  // Dictionary (or Struct field) lookup; nullptr when absent or neither.
  const MAttr* get(std::string_view key) const;
};

struct MRegion;

struct MOp {
  std::string name;  // "vhlo.add_v1", "builtin.module", "vhlo.func_v1"
  MAttrPtr loc;      // a Location attr; never null (Unknown at least)
  std::vector<uint32_t> operands;  // value ids
  std::vector<uint32_t> results;   // value ids
  std::vector<MTypePtr> result_types;
  // The op's attribute dictionary; for ops whose attributes the bytecode held
  // as properties (builtin.module's sym_name, ...), the decoded properties
  // are merged in here too.
  std::vector<std::pair<std::string, MAttrPtr>> attrs;
  std::vector<MRegion> regions;
  std::vector<uint32_t> successors;  // block indices within the parent region

  const MAttr* attr(std::string_view key) const;
};

struct MBlock {
  std::vector<uint32_t> args;  // value ids
  std::vector<MTypePtr> arg_types;
  std::vector<MAttrPtr> arg_locs;  // one per arg; Unknown when absent
  std::vector<MOp> ops;
};

struct MRegion {
  std::vector<MBlock> blocks;
};

struct MTree {
  std::string producer;     // "StableHLO_v1.20.0"
  uint64_t version = 0;     // bytecode format version
  std::vector<MOp> top;     // top-level ops (normally one builtin.module)
  uint32_t num_values = 0;  // value ids are unique in the whole tree, < num_values
  std::vector<std::string> dialects;  // names of the dialects the file used
};

}  // namespace jft::frontend
