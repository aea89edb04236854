// A reader of MLIR's generic textual form, as `mlir-opt --mlir-print-op-generic`
// writes it for the zoo fixtures (program.generic.mlir, artifact.generic.mlir).
//
// It is the independent reference the conformance test checks the frontend
// against, so it shares no code with src/frontend: it keeps the op tree,
// types and locations, and leaves attribute values as raw text for the
// helpers of text_attr.h to interpret where a check needs them.
//
// Supported: `#alias = loc(...)` definitions anywhere in the file, ops with
// results (`%3`, `%3:2`), operands (`%3#1`, `%arg0`), properties `<{...}>`,
// regions of one block each (with `^bb0(%a: type loc(...)):` headers),
// attribute dictionaries, `: (types) -> types` signatures and trailing locations.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/status.h"

namespace jft::conformance {

struct TextType {
  enum class Kind : uint8_t { Tensor, Token, Tuple, Other };
  Kind kind = Kind::Other;
  std::string element;          // Tensor: "f32", "complex<f32>", "ui32"
  std::vector<int64_t> dims;    // Tensor; -1 for '?'
  std::vector<TextType> tuple;  // Tuple
  std::string text;             // the type as written
};

struct TextFunctionType {
  std::vector<TextType> inputs, results;
};

// Index into TextModule::locs; kNoLoc when the op carries no loc(...).
using LocRef = int32_t;
inline constexpr LocRef kNoLoc = -1;

struct TextLoc {
  enum class Kind : uint8_t { Unknown, File, Name, CallSite, Fused, Alias };
  Kind kind = Kind::Unknown;
  std::string text;  // File: file name; Name: the name; Alias: "#loc12"
  int64_t line = 0, col = 0;
  std::vector<LocRef> children;  // Name: {child}|{}; CallSite: {callee, caller}; Fused
};

struct FileFrame {
  std::string file;
  int64_t line = 0, col = 0;
  friend bool operator==(const FileFrame&, const FileFrame&) = default;
};

// `name = value` with the value as written; a unit attribute has an empty value.
struct TextAttr {
  std::string name;
  std::string value;
};

struct TextRegion;

struct TextOp {
  std::string name;                   // "stablehlo.add", "func.func"
  std::vector<std::string> results;   // canonical value names, see canonicalValue
  std::vector<std::string> operands;  // canonical value names
  std::vector<TextAttr> properties;   // <{...}>
  std::vector<TextAttr> attributes;   // {...}
  std::vector<TextRegion> regions;
  std::vector<TextType> operand_types, result_types;
  LocRef loc = kNoLoc;
  int line = 0;  // 1-based line of the op in the text, for messages

  const TextAttr* property(std::string_view key) const;
  const TextAttr* attribute(std::string_view key) const;
};

struct TextBlockArg {
  std::string name;  // "%arg0"
  TextType type;
  LocRef loc = kNoLoc;
};

// A region holds exactly one block (all StableHLO regions do).
struct TextRegion {
  std::vector<TextBlockArg> args;
  std::vector<TextOp> ops;
};

struct TextModule {
  std::vector<TextOp> top;  // normally one builtin.module
  std::vector<TextLoc> locs;
  std::map<std::string, LocRef> aliases;  // "#loc3" -> its definition

  // The builtin.module op; nullptr if absent.
  const TextOp* moduleOp() const;
  // The func.func ops of the module, in text order.
  std::vector<const TextOp*> functions() const;
  // The innermost file position of a location, by MLIR's conventions: a call
  // site's callee, a name's child, a fused list's first file location.
  std::optional<FileFrame> userFrame(LocRef ref) const;
};

// A value reference as the parser stores it: "%5" for a one-result op,
// "%5#1" for result 1 of a multi-result op, "%arg0" for block arguments.
std::string canonicalValue(std::string_view name, int result_index, int num_results);

StatusOr<TextModule> parseGenericText(std::string_view text);
StatusOr<TextModule> readGenericFile(const std::string& path);

// Parses "tensor<4x?xf32>", "!stablehlo.token", "tuple<...>", "i32".
StatusOr<TextType> parseTextType(std::string_view text);
// Parses "(tensor<f32>, tensor<2xi32>) -> (tensor<f32>)" or "() -> tensor<f32>".
StatusOr<TextFunctionType> parseTextFunctionType(std::string_view text);

}  // namespace jft::conformance
