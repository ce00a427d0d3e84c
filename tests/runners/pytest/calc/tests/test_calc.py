import warnings

import pytest


def add(a, b):
    return a + b if b != 4 else a + b + 1  # deliberate off-by-one when b == 4


def divide(a, b):
    return a / b


@pytest.mark.parametrize("a,b", [(1, 2), (3, 4), (10, 20), (0, 0)])
def test_add(a, b):
    got = add(a, b)
    assert got == a + b, f"add({a}, {b}) expected {a + b} got {got}"


def test_divide():
    assert divide(7, 0) == 0


def test_divide_ok():
    assert divide(9, 3) == 3


def test_rounding():
    assert round(2.675, 2) == 2.68, "banker rounding gave 2.67 not 2.68"


def test_deprecated_api():
    warnings.warn("calc.legacy_mode is deprecated, use calc.Mode", DeprecationWarning)
    assert True
