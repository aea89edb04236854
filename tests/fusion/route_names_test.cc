#include <gtest/gtest.h>

#include <string>

#include "fusion/fusion.h"

namespace jft::fusion {
namespace {

TEST(RouteNames, SpellEveryRouteAndFamily) {
  EXPECT_EQ(std::string(routeName(Route::kTtir)), "ttir");
  EXPECT_EQ(std::string(routeName(Route::kLibrary)), "library");
  EXPECT_EQ(std::string(routeName(Route::kControl)), "control");
  EXPECT_EQ(std::string(routeName(Route::kCollective)), "collective");
  EXPECT_EQ(std::string(routeName(Route::kCopy)), "copy");
  EXPECT_EQ(std::string(routeName(Route::kNative)), "native");
  EXPECT_EQ(std::string(routeName(Route::kNone)), "none");
  EXPECT_EQ(std::string(familyName(Family::kNone)), "none");
  EXPECT_EQ(std::string(familyName(Family::kLoop)), "loop");
  EXPECT_EQ(std::string(familyName(Family::kReduction)), "reduction");
  EXPECT_EQ(std::string(familyName(Family::kAttention)), "attention");
}

}  // namespace
}  // namespace jft::fusion
