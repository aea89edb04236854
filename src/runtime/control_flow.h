// Thunk lists of a program with control flow.
#pragma once

#include <vector>

#include "runtime/program.h"

namespace jft::runtime {

// Every launch of the program, its nested lists included.
std::vector<const LaunchThunk*> launchesIn(const Program& program);

}  // namespace jft::runtime
