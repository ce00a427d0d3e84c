#include <gtest/gtest.h>

#include "ring.h"

TEST(RingTest, StartsEmpty) {
  Ring<int> r(4);
  EXPECT_EQ(r.size(), 0u);
}

TEST(RingTest, ReportsCapacity) {
  Ring<int> r(4);
  EXPECT_EQ(r.capacity(), 4u) << "capacity of Ring(4) must be 4";
}

TEST(RingTest, NewestIsLastPushed) {
  Ring<int> r(3);
  r.push(10);
  r.push(20);
  EXPECT_EQ(r.newest(), 20);
  EXPECT_EQ(r.size(), 2u);
}

TEST(RingTest, PopOnEmptyIsAnError) {
  Ring<int> r(4);
  EXPECT_EQ(r.pop(), 0);
}

class RingWrapTest : public ::testing::TestWithParam<int> {};

TEST_P(RingWrapTest, KeepsLastN) {
  const int n = GetParam();
  Ring<int> r(3);
  for (int i = 1; i <= n; ++i) r.push(i);
  ASSERT_EQ(r.size(), static_cast<std::size_t>(n < 3 ? n : 3));
  EXPECT_EQ(r.pop(), n <= 3 ? 1 : n - 3) << "oldest kept value after " << n << " pushes";
}

INSTANTIATE_TEST_SUITE_P(Pushes, RingWrapTest, ::testing::Values(1, 3, 5));
