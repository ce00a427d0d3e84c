import unittest
class CalcTest(unittest.TestCase):
    def test_add(self): self.assertEqual(2 + 2, 5, "sum of two and two")
    def test_sub(self): self.assertEqual(3 - 1, 2)
    def test_div(self): self.assertEqual(1 / 0, 0)
    def test_mul(self): self.assertTrue(2 * 3 == 7, "six is not seven")
