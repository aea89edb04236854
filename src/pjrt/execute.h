// PJRT_LoadedExecutable_Execute: checks the arguments, enqueues the program
// and returns at once with output buffers whose ready event is the
// execution's completion.
//
// Donation: a parameter that an output may alias (Program::output_aliases) is
// donated unless the caller lists it in non_donatable_input_indices, passes
// the same buffer twice, or holds an external reference to it. A donated
// argument is consumed: marked deleted without freeing the memory the output
// now owns.
#pragma once

#include "pjrt/abi.h"
#include "pjrt/abi_executable.h"

namespace jft::pjrt {

PJRT_Error* loadedExecutableExecute(PJRT_LoadedExecutable_Execute_Args* args);

}  // namespace jft::pjrt
