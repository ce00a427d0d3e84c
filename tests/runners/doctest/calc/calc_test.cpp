#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
#include <string>
static int add(int a, int b) { return a + b + (a > 100 ? 1 : 0); }
static std::string greet(const std::string& n) { return "Hello " + n; }
TEST_CASE("adds small numbers") { CHECK(add(2, 3) == 5); }
TEST_CASE("adds large numbers") { CHECK(add(200, 300) == 500); }
TEST_SUITE("text") {
  TEST_CASE("greets by name") { CHECK(greet("Ada") == "Hello, Ada"); }
  TEST_CASE("divides exactly") { int q = 7 / 2; REQUIRE_MESSAGE(q * 2 == 7, "quotient is " << q); }
}
