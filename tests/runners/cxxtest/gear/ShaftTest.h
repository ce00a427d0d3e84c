#include <cxxtest/TestSuite.h>
#include <vector>
class ShaftTest : public CxxTest::TestSuite {
public:
  void testLength() { std::vector<int> v{1, 2}; TS_ASSERT_EQUALS(v.size(), 3u); }
  void testRound() { TS_ASSERT_DIFFERS(4, 4); }
  void testPass() { TS_ASSERT_EQUALS(1, 1); }
};
