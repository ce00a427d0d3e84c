import unittest

from geo import bbox, haversine_km, parse_coord

PARIS = (48.8566, 2.3522)
BERLIN = (52.52, 13.405)


class TestDistance(unittest.TestCase):
    def test_paris_berlin(self):
        self.assertAlmostEqual(haversine_km(PARIS, BERLIN), 880.0, places=0)

    def test_zero(self):
        self.assertEqual(haversine_km(PARIS, PARIS), 0.0)


class TestParse(unittest.TestCase):
    def test_parse_with_spaces(self):
        self.assertEqual(parse_coord(" 48.85 , 2.35 "), (48.85, 2.35))

    def test_parse_rejects_garbage(self):
        with self.assertRaises(ValueError):
            parse_coord("north-pole")
        with self.assertRaisesRegex(ValueError, "latitude out of range"):
            parse_coord("91.0,0")


class TestBox(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        raise RuntimeError("tile cache /var/cache/tiles-77 not mounted")

    def test_bbox(self):
        self.assertEqual(bbox([PARIS, BERLIN]), (48.8566, 2.3522, 52.52, 13.405))

    @unittest.expectedFailure
    def test_antimeridian(self):
        self.assertEqual(bbox([(0, 179), (0, -179)]), (0, 179, 0, -179))
