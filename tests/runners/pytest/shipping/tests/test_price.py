import pytest

from shipping import price, volumetric_kg


@pytest.mark.parametrize("weight,zone,expected", [
    (1, "domestic", 4.5),
    (3, "eu", 11.4),
    (2, "mars", 99.0),
])
def test_price(weight, zone, expected):
    assert price(weight, zone) == expected


def test_volumetric():
    assert volumetric_kg(30, 20, 10) == 1.0


def test_heavy_world():
    assert price(11, "world") == 30.0, "world rate for 11 kg parcel"
