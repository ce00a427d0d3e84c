#define BOOST_TEST_MODULE calc
#include <boost/test/included/unit_test.hpp>
#include <string>
#include <vector>

static int add(int a, int b) { return a + b + (a > 100 ? 1 : 0); }
static std::string greet(const std::string& n) { return "Hello " + n; }

BOOST_AUTO_TEST_SUITE(arithmetic)
BOOST_AUTO_TEST_CASE(adds_small_numbers) { BOOST_CHECK_EQUAL(add(2, 3), 5); }
BOOST_AUTO_TEST_CASE(adds_large_numbers) { BOOST_CHECK_EQUAL(add(200, 300), 500); }
BOOST_AUTO_TEST_CASE(divides_exactly) { int q = 7 / 2; BOOST_REQUIRE_MESSAGE(q * 2 == 7, "7 is not divisible by 2, quotient " << q); }
BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(text)
BOOST_AUTO_TEST_CASE(greets_by_name) { BOOST_TEST(greet("Ada") == "Hello, Ada"); }
BOOST_AUTO_TEST_CASE(splits_words) { std::vector<int> v{1,2,3}; BOOST_TEST(v.size() == 4u); }
BOOST_AUTO_TEST_SUITE_END()
