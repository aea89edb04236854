// bitcast_widths: a bitcast_convert between element types of different
// widths becomes shifts, converts and a slice or concatenate over the minor
// dim, so that it fuses like any elementwise work. JAX emits it for its rbg
// keys (u32[4] <-> u64[2]) and for jax.lax.bitcast_convert_type. Order: the
// narrow elements along the minor dim fill the wide one from its low bits up
// (little-endian, as the memory of every GPU XLA targets reads them):
//   u32[..., 2] -> u64[...]:  w = lo | hi << 32 with lo = x[..., 0]
//   u64[...] -> u32[..., 2]:  x[..., i] = (w >> 32 i) truncated
// Float and signed types go through the unsigned type of their width.
// Sub-byte, pred and complex element types are left alone.
#pragma once

#include "ir/module.h"

namespace jft::passes {

// Returns true when a bitcast_convert was rewritten.
bool expandWidthChangingBitcasts(ir::Module& module);

}  // namespace jft::passes
