// The conformance checks: an imported ir::Module against the generic text of
// the same program, each difference one line of the returned list (every
// difference, not just the first).
//
// Strict (artifact.generic.mlir, the very module the bytecode holds):
// functions with names, visibility and signatures; per region the same ops in
// the same order with the same result types, operand wiring, properties and
// file:line:col of their locations.
//
// Loose (program.generic.mlir, the module before serialization): the
// serializer moves, deduplicates and hoists constants and replaces CHLO ops
// by composites with decomposition functions or by their expansion. So:
// every text function exists with its visibility and signature; per function
// the op sequences agree once constants are set aside, a chlo op standing for
// any run of ops; the distinct constant values agree (a set, not a
// multiset: deduplication changes the counts); and where no chlo op is
// involved, ops pair up one to one and are checked for result types,
// properties (defaults the serializer drops excepted) and operand wiring,
// a constant operand standing for its value.
#pragma once

#include <string>
#include <vector>

#include "generic_text.h"
#include "ir/module.h"

namespace jft::conformance {

std::vector<std::string> compareStrict(const TextModule& text, const ir::Module& module);
std::vector<std::string> compareLoose(const TextModule& text, const ir::Module& module);

}  // namespace jft::conformance
