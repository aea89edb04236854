// An outline of a fixture's artifact.generic.mlir, read line by line: the
// pre-order sequence of ops (name, result and operand counts, location) and
// block headers. It is the independent reference the reader's tree is
// checked against; it knows nothing of bytecode.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace jft::frontend::bytecode_test {

struct OutlineItem {
  bool is_block = false;  // a "^bbN(...)" header
  std::string name;       // op name, e.g. "stablehlo.add"
  int num_results = 0;
  int num_operands = 0;  // ops: operands; blocks: arguments
  std::string loc;       // canonical location (see canonicalLoc), "" if not on the line
  // The op's properties, "<{key = value, ...}>", split at top level: (key, value text).
  std::vector<std::pair<std::string, std::string>> props;
};

struct Outline {
  std::vector<OutlineItem> items;
  std::string module_sym_name;
};

Outline readOutline(const std::string& text);

// Location text ("loc(...)" body, aliases resolved) in a canonical form:
// unknown | name("n",child) | file("f",l,c,el,ec) | callsite(a,b) | fused(a,b,...)
std::string canonicalTextLoc(const std::string& body,
                             const std::map<std::string, std::string>& aliases);

}  // namespace jft::frontend::bytecode_test
