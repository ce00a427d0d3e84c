#include <cxxtest/TestSuite.h>
class GearTest : public CxxTest::TestSuite {
public:
  void testTeeth() { TS_ASSERT_EQUALS(12, 14); TS_ASSERT_LESS_THAN(5, 3); }
  void testFail() { TS_FAIL("gear slipped"); }
};
