#include <catch2/catch.hpp>
#include <sstream>

#include "vec.h"

namespace Catch {
template <> struct StringMaker<Vec2> {
  static std::string convert(Vec2 const& v) { std::ostringstream o; o << "Vec2{" << v.x << ", " << v.y << "}"; return o.str(); }
};
}

TEST_CASE("adding vectors", "[vec]") {
  REQUIRE((Vec2{1, 2} + Vec2{3, 4}) == (Vec2{4, 6}));
}

TEST_CASE("subtracting vectors", "[vec]") {
  CHECK((Vec2{5, 5} - Vec2{2, 3}) == (Vec2{3, 2}));
}

TEST_CASE("normalizing", "[vec][length]") {
  SECTION("a unit vector stays") {
    REQUIRE(Vec2{1, 0}.normalized().length() == Approx(1.0));
  }
  SECTION("the zero vector") {
    Vec2 z{0, 0};
    REQUIRE(z.normalized().length() == Approx(0.0));
  }
}

TEST_CASE("lengths", "[length]") {
  INFO("checking the 3-4-5 triangle");
  CHECK(Vec2{3, 4}.length() == Approx(5.0));
  CHECK(Vec2{6, 8}.length() == Approx(11.0));
}
