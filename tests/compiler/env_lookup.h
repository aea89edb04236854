// An Options::EnvLookup that reads a map, so tests set variables without
// touching the process's environment.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "compiler/compiler.h"

namespace jft::compiler::testing {

inline Options::EnvLookup envOf(std::map<std::string, std::string> vars) {
  return [vars](const char* name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

}  // namespace jft::compiler::testing
