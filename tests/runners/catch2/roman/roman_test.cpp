#include <catch2/catch.hpp>

#include "roman.h"

TEST_CASE("small numbers", "[to]") {
  CHECK(to_roman(3) == "III");
  CHECK(to_roman(4) == "IV");
  CHECK(to_roman(9) == "IX");
}

TEST_CASE("year of the moon landing", "[to]") {
  REQUIRE(to_roman(1969) == "MCMLXIX");
}

TEST_CASE("round trip", "[from]") {
  auto n = GENERATE(1, 8, 40);
  CAPTURE(n);
  REQUIRE(from_roman(to_roman(n)) == n);
}

TEST_CASE("invalid letters are rejected", "[from]") {
  REQUIRE_THROWS_WITH(from_roman("XIZ"), Catch::Contains("invalid numeral letter 'Z'"));
}

TEST_CASE("zero is refused", "[to]") {
  REQUIRE_THROWS_AS(to_roman(0), std::out_of_range);
}
