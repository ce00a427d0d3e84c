#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
#include <stdexcept>
#include <string>
#include <vector>

struct Rect { double w, h; double area() const { return w * h; } };
static Rect parse_rect(const std::string& s) {
  auto x = s.find('x');
  if (x == std::string::npos) throw std::invalid_argument("bad rect: " + s);
  return {std::stod(s.substr(0, x)), std::stod(s.substr(x + 1))};
}

TEST_CASE("rect area") { CHECK(Rect{2, 3}.area() == doctest::Approx(6.0)); }
TEST_CASE("circle area") { CHECK(3.14 * 1.0 * 1.0 == doctest::Approx(3.14159).epsilon(0.0001)); }
TEST_CASE("parses a rect") { CHECK(parse_rect("3by4").w == 3.0); }
TEST_CASE("corners") {
  SUBCASE("triangle") { CHECK_MESSAGE(3 == 4, "a triangle has 3 corners"); }
  SUBCASE("square") { CHECK(4 == 4); }
}
TEST_CASE("sides") { std::vector<int> v{3, 4, 5}; CHECK(v.size() == 4); }
