// Names every SSA definition of a function by its place in the function, so
// that a value of the text and a value of the imported IR can be compared
// without sharing names: "result 1 of op 7" or "argument 0 of block 2", with
// ops and blocks counted in preorder (an op before the ops of its regions).
#pragma once

#include <map>
#include <string>
#include <unordered_map>

#include "generic_text.h"
#include "ir/module.h"

namespace jft::conformance {

struct DefKey {
  bool is_block_arg = false;
  int owner = -1;  // op ordinal, or block ordinal for block arguments
  int index = -1;  // result or argument index
  friend bool operator==(const DefKey&, const DefKey&) = default;
};

std::string describeDef(const DefKey& key);

// Definitions of a text function (a func.func op), by canonical value name.
std::map<std::string, DefKey> numberTextFunction(const TextOp& function);
// Looks an operand name up; also accepts "%5#0" for the one result of %5.
const DefKey* findTextDef(const std::map<std::string, DefKey>& defs,
                          const std::string& name);

// Definitions of an IR function, by value id.
std::unordered_map<ir::ValueId, DefKey> numberIrFunction(const ir::Function& function);

}  // namespace jft::conformance
