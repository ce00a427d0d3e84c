#define BOOST_TEST_MODULE shapes
#include <boost/test/included/unit_test.hpp>
#include <cmath>
#include <cstdio>
#include <string>
#include <stdexcept>
#include <vector>

struct Rect { double w, h; double area() const { return w * h; } };
static double circle_area(double r) { return 3.14 * r * r; }
static Rect parse_rect(const char* s) {
  Rect r{0, 0};
  if (std::sscanf(s, "%lfx%lf", &r.w, &r.h) != 2) throw std::invalid_argument(std::string("bad rect: ") + s);
  return r;
}

BOOST_AUTO_TEST_CASE(rect_area) { Rect r{2, 3}; BOOST_CHECK_CLOSE(r.area(), 6.0, 0.001); }
BOOST_AUTO_TEST_CASE(circle_area_is_precise) { BOOST_CHECK_CLOSE(circle_area(1.0), M_PI, 0.001); }
BOOST_AUTO_TEST_CASE(parses_a_rect) { Rect r = parse_rect("3by4"); BOOST_CHECK_EQUAL(r.w, 3.0); }

BOOST_AUTO_TEST_SUITE(lists)
BOOST_AUTO_TEST_CASE(keeps_every_shape) {
  std::vector<int> sides{3, 4, 5};
  std::vector<int> expected{3, 4, 6};
  BOOST_CHECK_EQUAL_COLLECTIONS(sides.begin(), sides.end(), expected.begin(), expected.end());
}
BOOST_AUTO_TEST_CASE(counts_corners) { BOOST_WARN_EQUAL(4, 4); BOOST_CHECK_MESSAGE(3 == 4, "a triangle has 3 corners, not 4"); }
BOOST_AUTO_TEST_SUITE_END()
