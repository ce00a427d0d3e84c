#include <cxxtest/TestSuite.h>
#include <string>
class WidgetTest : public CxxTest::TestSuite {
public:
  void testSize() { int x = 2; TS_ASSERT(x > 2); }
  void testName() { TS_ASSERT_EQUALS(std::string("bolt"), std::string("nut")); }
  void testOk() { TS_ASSERT(true); }
  void testDelta() { TS_ASSERT_DELTA(1.0, 1.5, 0.1); }
  void testThrow() { TS_ASSERT_THROWS_NOTHING(throw 3); }
};
