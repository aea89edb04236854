// The host of the tests' precompiled header (see tests/CMakeLists.txt).
#include <gtest/gtest.h>

int main() { return 0; }
