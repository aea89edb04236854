// The scan family: one cumulative reduction (fusion/scan_form.h) along one
// axis, with its elementwise prologue.
//
// The input of shape F is viewed as rows (every index but the axis) by the
// axis, tiled [BR, BK]: a program owns BR rows. A row that fits one tile is
// one "tt.scan" along tile axis 1; a longer row walks chunks of BK in an
// scf.for carrying the running total per row, which each chunk's scan is
// combined with. The init value is combined in once per row the same way
// (as the first carry). A reverse scan reads its row back to front, so the
// same forward tt.scan runs and lanes past the row's end are always last
// (masked, never combined into a stored lane). The chlo.scan composite's
// final carry (its second result) is the last stored lane of each row,
// picked by a two-operand tt.reduce on (value, lane).
//
// A complex scan (a cumulative sum or product) carries its two parts as two
// operands everywhere: a two-operand tt.scan whose region is the complex
// add or multiply (complex_emitter.h), two loop-carried totals, a
// three-operand tt.reduce (re, im, lane) for the carry, both parts stored.
#pragma once

#include "codegen/ttir/kernel_inputs.h"
#include "support/status.h"

namespace jft::codegen::ttir {

StatusOr<Launch> emitScanKernel(const KernelInputs& in);

}  // namespace jft::codegen::ttir
