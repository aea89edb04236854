// Where the zoo fixtures live: $JFT_FIXTURE_DIR, else the path CMake compiled in.
#pragma once

#include <string>
#include <vector>

namespace jft::conformance {

std::string fixtureDir();
// Names of the fixture folders (those holding a program.mlirbc), sorted.
std::vector<std::string> fixtureNames();
std::string fixturePath(const std::string& fixture, const std::string& file);

}  // namespace jft::conformance
