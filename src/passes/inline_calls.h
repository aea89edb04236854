// inline: replaces every call by the body of its callee, and every composite
// by the body of its decomposition function, then removes the functions no
// longer referenced (unused_functions.h; the entry and public functions stay).
//
// A composite's name ("chlo.erf", "chlo.top_k", ...) stays visible to later
// stages in one of two ways:
//   - kept: when InlineOptions::keep_composite returns true for it (a stage
//     that implements the composite natively claims it), the composite op
//     stays and so does its decomposition function;
//   - tagged: otherwise every op inlined from its decomposition (not the ops
//     inside their regions) gets the attribute "jft.composite" = the
//     composite's name, a string. Ops already tagged by a composite nested
//     inside keep that innermost name.
// Inlined ops take the location callsite(op location, call location), so
// messages can still name the user's line.
//
// Calls are inlined inside every function, nested regions included, and
// inside inlined bodies up to InlineOptions::max_depth nested calls.
// Errors (INVALID_ARGUMENT, naming the call's location): a callee that does
// not exist, recursion ("recursive call: @a -> @b -> @a"), nesting deeper
// than max_depth, operands or results that do not match the callee.
//
// Before: the IR verifies. After: it verifies, no call op remains, no
// composite remains but those kept, and every function left is reachable
// from a public one.
#pragma once

#include <functional>

#include "ir/module.h"
#include "support/status.h"

namespace jft::passes {

struct InlineOptions {
  // Composites this returns true for are kept (not inlined). Unset: none.
  std::function<bool(const ir::Op& composite)> keep_composite;
  // Calls nested deeper than this inside inlined bodies are an error.
  int max_depth = 64;
};

// Returns whether anything changed.
StatusOr<bool> inlineCalls(ir::Module& module, const InlineOptions& options = {});

}  // namespace jft::passes
