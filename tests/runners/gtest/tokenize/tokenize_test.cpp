#include <gtest/gtest.h>

#include <fstream>

#include "tokenize.h"

TEST(SplitTest, SimpleFields) {
  EXPECT_EQ(split("a,b,c", ',').size(), 3u);
}

TEST(SplitTest, KeepsEmptyFields) {
  auto f = split("a,,c", ',');
  EXPECT_EQ(f.size(), 3u) << "fields of \"a,,c\":\n  got " << f.size()
                          << " fields\n  the empty middle field was dropped";
}

TEST(NumberTest, ParsesExponent) {
  EXPECT_NEAR(parse_number("1.5e3"), 1500.0, 1e-9);
  EXPECT_NEAR(parse_number("2,5"), 2.5, 1e-9);
}

TEST(QuoteTest, UnquotedPassesThrough) {
  EXPECT_STREQ(unquote("plain"), "plain");
}

class FixtureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ifstream f("/nonexistent/grammar-v2.ebnf");
    ASSERT_TRUE(f.good()) << "grammar file grammar-v2.ebnf not found";
  }
};

TEST_F(FixtureTest, LoadsGrammar) {
  SUCCEED();
}
