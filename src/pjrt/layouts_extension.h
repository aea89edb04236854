// The PJRT layouts extension (PJRT_Extension_Type_Layouts): through it JAX
// learns the layouts a compiled program takes and returns (what
// `mhlo.layout_mode` asked for, compiler/entry_layouts.h), a buffer's
// layout and the default one. A layout is XLA's text for a dense order of
// the dims, minor to major ("{0,1}"), which JAX parses back.
#pragma once

#include <string>

#include "pjrt/abi.h"
#include "pjrt/abi_layouts.h"

struct PJRT_Layouts_MemoryLayout {
  std::string text;  // "{1,0}"
};

namespace jft::pjrt {

// The extension; `next` follows it in the chain. Lives for the process.
PJRT_Extension_Base* layoutsExtension(PJRT_Extension_Base* next);

}  // namespace jft::pjrt
