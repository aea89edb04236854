// What both kernel backends read off a fusion group before writing its
// kernel: the entry name (the native route's kernel takes the TTIR kernel's
// name, so either can stand in for the other), how far its offsets reach
// (which picks the index type), and whether it has anything to compute.
#pragma once

#include <cstdint>
#include <string>

#include "fusion/fusion.h"
#include "ir/module.h"

namespace jft::codegen::common {

// `fusion_name` as a C identifier: other characters become '_', and a name
// that would start with a digit (or be empty) gets a "k_" prefix.
std::string kernelName(const std::string& fusion_name);

// The most elements of any tensor the group's kernel touches (inputs,
// outputs, every op's operands and results), a complex element counted as its
// two components when `components`: how far the kernel's offsets reach.
int64_t largestTensor(const ir::Module& module, const ir::Function& function,
                      const fusion::Fusion& fusion, bool components);

// Whether every output is empty (and there is one): the kernel has nothing
// to compute.
bool hasNoElements(const ir::Module& module, const fusion::Fusion& fusion);

}  // namespace jft::codegen::common
